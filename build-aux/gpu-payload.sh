#!/bin/bash
# build-aux/gpu-payload.sh BUILDDIR OUT.tar.xz: what tests/gpu/device-session.sh needs on
# a lent GPU machine whose image is not Debian 12: the built programs at their build-tree
# paths, the shared libraries they need (the machine keeps its own copy of any soname it
# has), and Debian's Python 3.11 standard library for the embedded interpreter.
set -eu
BUILD=${1:-build}
OUTFILE=${2:-.dev/payload.tar.xz}
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

progs="$BUILD/src/cli/tensorscope-cli $BUILD/tests/cuda-check $BUILD/tests/test-seed-examples
       $BUILD/tests/test-cuda-backend $BUILD/tests/libtensorscope-fake-cuda.so
       $BUILD/src/kernels/cuda/libtensorscope-cuda.so $BUILD/src/cuda/libtensorscope-inject.so"
mkdir -p "$STAGE/tree" "$STAGE/lib"
for p in $progs; do
  mkdir -p "$STAGE/tree/$(dirname "$p")"
  cp -a "$p" "$STAGE/tree/$p"
done
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$STAGE/tree/$BUILD/launch-loop" tests/gpu/launch-loop.cu

# Libraries: everything ldd resolves except the C runtime and CUDA's own, which the
# GPU machine brings in newer versions; with those of the standard library's extension
# modules.
skip='^(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|libgcc_s|libstdc\+\+|libcuda|libcudart|libcublas|libcublasLt|libcupti|linux-vdso)\.so'
for p in $progs /usr/lib/python3.11/lib-dynload/*.so; do ldd "$p"; done | awk '$3 ~ /^\// { print $1, $3 }' | sort -u |
  while read -r soname path; do
    if ! echo "$soname" | grep -Eq "$skip"; then cp -L "$path" "$STAGE/lib/$soname"; fi
  done

mkdir -p "$STAGE/python"
tar -C /usr/lib -cf - --exclude=__pycache__ --exclude='python3.11/test' --exclude='python3.11/idlelib' \
    --exclude='python3.11/tkinter' --exclude='python3.11/turtledemo' --exclude='python3.11/ensurepip' \
    --exclude='python3.11/lib2to3' --exclude='python3.11/config-3.11-x86_64-linux-gnu' python3.11 |
  tar -C "$STAGE/python" -xf -
mkdir -p "$(dirname "$OUTFILE")"
tar -C "$STAGE" -cf - tree lib python | xz -T2 -6 >"$OUTFILE"
ls -la "$OUTFILE"
