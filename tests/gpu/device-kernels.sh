#!/bin/bash
# tests/gpu/device-kernels.sh: a short pass on a lent GPU (about two and a half
# minutes) for what the CUDA module gained since the last one: ABI 4's kernels
# (tests/gpu/new-kernels.py against the same ops on the CPU, and whether any op
# still took the host fallback), the training steps on our backend next to
# real PyTorch on the same host, PyTorch's CUDA random values for
# tests/gpu/rng_values.py (compared with the simulator's afterwards), and the
# workloads on our backend case by case. The payload comes from
# build-aux/gpu-payload.sh BUILD .dev/payload.tar.xz (BUILD=build-h for the
# non-LTO tree). Output: $OUT/log.txt and $OUT/results.tar.xz.
PACK_AFTER_S=${PACK_AFTER_S:-200}
. "$(dirname "$0")/device-env.sh"

stamp "host"
lscpu | grep -E "Model name|^CPU\(s\)" | head -2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader

stamp "cuda-check"
timeout 40 "$B/tests/cuda-check" 2>&1 | grep -v "^ok " | tail -6

stamp "ABI 4 kernels on our backend (new-kernels.py)"
G_MESSAGES_DEBUG=all timeout 90 "$CLI" run --backend=cuda tests/gpu/new-kernels.py >"$R/new-kernels.txt" 2>&1
echo "exit $?"
grep -v "DEBUG" "$R/new-kernels.txt" | tail -40
echo "host fallbacks: $(grep -c 'no device kernel' "$R/new-kernels.txt")"
grep 'no device kernel' "$R/new-kernels.txt" | sed 's/.*DEBUG: [0-9.:]*: //' | sort | uniq -c | head

stamp "training steps (us per step), our backend and real PyTorch on this host"
for args in "cuda" "cuda adam"; do
  echo "real PyTorch $args: $(timeout 60 env -u LD_LIBRARY_PATH "$PY" benchmarks/bench_train_step.py $args 2>&1 | tail -1)"
  echo "our CUDA backend $args: $(G_MESSAGES_DEBUG=all timeout 90 "$CLI" run --backend=cuda benchmarks/bench_train_step.py -- $args 2>&1 | tee "$R/step-$args.txt" | grep us_per)"
  echo "  host fallbacks: $(grep -c 'no device kernel' "$R/step-$args.txt")"
done
echo "real PyTorch conv cuda: $(timeout 60 env -u LD_LIBRARY_PATH "$PY" benchmarks/bench_conv.py cuda 2>&1 | tail -1)"
echo "our CUDA backend conv: $(G_MESSAGES_DEBUG=all timeout 90 "$CLI" run --backend=cuda benchmarks/bench_conv.py -- cuda 2>&1 | tee "$R/conv.txt" | grep -v DEBUG | tail -1)"
echo "  host fallbacks: $(grep -c 'no device kernel' "$R/conv.txt")"

stamp "CUDA random values, real PyTorch"
timeout 30 env -u LD_LIBRARY_PATH "$PY" tests/gpu/rng_values.py 2>&1 | tee "$R/rng-real.txt"

stamp "workloads on the CUDA backend, case by case"
mkdir -p "$R/hw"
"$B/tests/test-seed-examples" -l | grep '^/' >"$R/hw/cases"
TS_TEST_BACKEND=cuda TS_TEST_GPUS=1 xargs -P 16 -I{} sh -c '
  n=$(echo {} | tr / _); timeout 60 '"$B"'/tests/test-seed-examples -p {} >'"$R"'/hw/$n.log 2>&1
  echo "$? {}"' <"$R/hw/cases" >"$R/hw/summary"
awk '{print $1}' "$R/hw/summary" | sort | uniq -c
grep -v '^0 ' "$R/hw/summary" | head -20
for f in $(grep -v '^0 ' "$R/hw/summary" | awk '{print $2}' | tr / _ | head -8); do
  echo "== $f"; grep -m2 -E "ERROR|assert" "$R/hw/$f.log" | cut -c1-400
done
stamp "pack"
tar -C "$OUT" -cJf "$OUT/results.tar.xz" r && rm -rf "$R"
stamp "done"
