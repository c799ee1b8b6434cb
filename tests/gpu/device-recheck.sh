#!/bin/bash
# tests/gpu/device-recheck.sh: the short second pass of a GPU lease (about three
# minutes), after device-session.sh found what to fix: the CUDA backend's matmuls
# (TF32, float16, bfloat16), the workloads on the CUDA backend case by case
# (TS_TEST_GPUS: cases written for more GPUs than the machine has are skipped), the
# training-step benchmarks under real PyTorch (GPU and CPU), the simulator and our CUDA
# backend on the same host, pageable and pinned copies by size, and the gallery's
# asynchronous-error examples under real PyTorch. The payload comes from
# build-aux/gpu-payload.sh BUILD .dev/payload.tar.xz; BUILD (default build) names the
# build tree it holds. Output: $OUT/log.txt and $OUT/results.tar.xz.
PACK_AFTER_S=${PACK_AFTER_S:-185}
. "$(dirname "$0")/device-env.sh"

stamp "cuda-check"
timeout 40 "$B/tests/cuda-check" 2>&1 | grep -v "^ok " | tail -8

stamp "calibrate: our CUDA backend's matmuls"
timeout 60 "$CLI" run --backend=cuda tests/gpu/calibrate.py matmuls 2>&1 | tee "$R/cal-ours-mm.txt"

stamp "our CUDA backend: what one launch-bound op costs, from its own trace"
for timing in cupti events; do
  TENSORSCOPE_TIMING=$timing timeout 40 "$CLI" run --backend=cuda -o "$R/addloop-$timing.trace" tests/gpu/calibrate.py small_kernels 2>&1
  timeout 20 "$CLI" report "$R/addloop-$timing.trace" 2>&1 | sed -n '/CUDA API summary/,/^$/p' | head -14
done

stamp "copies by size, real PyTorch"
cat >"$R/copies.py" <<'PY'
import torch
for mib in (1, 4, 16, 64, 256):
    n = mib * 2**18
    d = torch.empty(n, device="cuda")
    for kind in ("pageable", "pinned"):
        h = torch.ones(n, pin_memory=(kind == "pinned"))
        for direction in ("h2d", "d2h"):
            ts = []
            for _ in range(6):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                if direction == "h2d":
                    d.copy_(h, non_blocking=True)
                else:
                    h.copy_(d, non_blocking=True)
                b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
            print(f"{direction} {kind} {mib} MiB first {ts[0]:.4f} ms median {sorted(ts[1:])[2]:.4f} ms")
PY
timeout 40 env -u LD_LIBRARY_PATH "$PY" "$R/copies.py" 2>&1 | tee "$R/copies-real.txt"

stamp "training steps (us per step)"
for args in "cuda" "cuda adam" "cpu" "cpu adam"; do
  echo "real PyTorch $args: $(timeout 60 env -u LD_LIBRARY_PATH "$PY" benchmarks/bench_train_step.py $args 2>&1 | tail -1)"
done
echo "real PyTorch conv cuda: $(timeout 60 env -u LD_LIBRARY_PATH "$PY" benchmarks/bench_conv.py cuda 2>&1 | tail -1)"
echo "real PyTorch conv cpu: $(timeout 60 env -u LD_LIBRARY_PATH "$PY" benchmarks/bench_conv.py cpu 2>&1 | tail -1)"
for args in "cuda" "cuda adam"; do
  echo "simulator $args: $(timeout 60 "$CLI" run benchmarks/bench_train_step.py -- $args 2>&1 | grep us_per)"
  echo "our CUDA backend $args: $(timeout 60 "$CLI" run --backend=cuda benchmarks/bench_train_step.py -- $args 2>&1 | grep us_per)"
done
echo "simulator conv: $(timeout 60 "$CLI" run benchmarks/bench_conv.py -- cuda 2>&1 | tail -1)"
for k in sgd adam conv; do
  echo "real PyTorch events: $(timeout 60 env -u LD_LIBRARY_PATH "$PY" tests/gpu/step_events.py $k 2>&1 | tail -1)"
  echo "simulator h200 events: $(timeout 60 "$CLI" run --gpus 1 --gpu-model h200 tests/gpu/step_events.py -- $k 2>&1 | tail -1)"
done

stamp "asynchronous errors, real PyTorch"
for e in async_error illegal_access; do
  timeout 30 env -u LD_LIBRARY_PATH "$PY" data/examples/$e.py 2>&1 | grep -v Assertion | head -4
done

stamp "workloads on the CUDA backend, case by case"
mkdir -p "$R/hw"
"$B/tests/test-seed-examples" -l | grep '^/' >"$R/hw/cases"
TS_TEST_BACKEND=cuda TS_TEST_GPUS=1 xargs -P 16 -I{} sh -c '
  n=$(echo {} | tr / _); timeout 60 '"$B"'/tests/test-seed-examples -p {} >'"$R"'/hw/$n.log 2>&1
  echo "$? {}"' <"$R/hw/cases" >"$R/hw/summary" &
HW=$!

wait $HW
stamp "workloads on the CUDA backend: summary"
awk '{print $1}' "$R/hw/summary" | sort | uniq -c
grep -v '^0 ' "$R/hw/summary" | head -40
grep -h "SKIP" "$R"/hw/*.log | wc -l
stamp "pack"
tar -C "$OUT" -cJf "$OUT/results.tar.xz" r && rm -rf "$R"
stamp "done"
