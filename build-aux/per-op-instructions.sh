#!/usr/bin/env bash
# Instructions per op of small tensor ops from Python, counted by callgrind:
# (count of N iterations of OP - count of N iterations of nothing) / N, on
# one build, so the figure is exact and repeatable where wall-clock time on
# a shared machine is not. Slow (about 10 s an op): not part of make bench.
#   build-aux/per-op-instructions.sh [BUILDDIR [N [OP...]]]
# With TORCH=1 it counts Debian's PyTorch on CPU tensors instead.
set -eu
cd "$(dirname "$0")/.."
builddir=${1:-build}
n=${2:-20000}
shift $(( $# > 2 ? 2 : $# ))
ops=${*:-add add_16x16 mul_grad relu relu_16x16 matmul_16x16 sum}
script=benchmarks/bench_per_op_loop.py
export PYTHONHASHSEED=0   # the same dict layouts in both runs
count () {
  local out
  out=$(mktemp)
  if [ "${TORCH:-0}" = 1 ]; then
    valgrind --tool=callgrind --callgrind-out-file="$out" /usr/bin/python3 "$script" "$n" "$1" cpu >/dev/null 2>"$out.log"
  else
    valgrind --tool=callgrind --callgrind-out-file="$out" "$builddir/src/cli/tensorscope-cli" run "$script" "$n" "$1" >/dev/null 2>"$out.log"
  fi
  sed -n 's/.*Collected : //p' "$out.log"
  rm -f "$out" "$out.log"
}
base=$(count none)
for op in $ops; do
  echo "$op $(( ($(count "$op") - base) / n ))"
done
