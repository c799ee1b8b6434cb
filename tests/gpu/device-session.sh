#!/bin/bash
# tests/gpu/device-session.sh: one pass over what needs a real GPU, in the few minutes a
# lent GPU machine is held. Unlike check.sh (which builds on the GPU machine), it runs a
# payload built elsewhere (build-aux/gpu-payload.sh BUILDDIR .dev/payload.tar.xz) on a
# machine whose image is not Debian 12. Each stage has its own time limit; everything it
# writes lands in $OUT (log.txt and results.tar.xz).
#
#  1. the machine: GPU, driver, PyTorch, which of our libraries it lacks
#  2. cuda-check: our CUDA kernels against known results, and their bandwidth
#  3. tests/gpu/calibrate.py under real PyTorch and under our CUDA backend
#  4. CUPTI overhead per launch (launch-loop alone and under `tensorscope-cli record`)
#  5. in parallel: test-seed-examples on the CUDA backend; the gallery examples under real
#     PyTorch (recorded), the simulator and our CUDA backend; snapshots and a Kineto trace
#     written by real PyTorch (tests/gpu/real-files.py); the api/sim workloads under real
#     PyTorch, to compare with their .expected files.
PACK_AFTER_S=${PACK_AFTER_S:-480}
. "$(dirname "$0")/device-env.sh"

stamp "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
env -u LD_LIBRARY_PATH "$PY" -c 'import torch; print("torch", torch.__version__, torch.version.cuda, torch.cuda.get_device_name())'
ldd "$B/src/kernels/cuda/libtensorscope-cuda.so" "$B/src/cuda/libtensorscope-inject.so" "$CLI" | grep -E "not found|cupti|cublas|cudart"
find / -xdev -name 'libcupti.so*' 2>/dev/null | head -5

stamp "cuda-check"
timeout 90 "$B/tests/cuda-check" >"$R/cuda-check.txt" 2>&1; echo "rc $?"; cat "$R/cuda-check.txt"

stamp "calibrate: real PyTorch"
env -u LD_LIBRARY_PATH timeout 90 "$PY" tests/gpu/calibrate.py >"$R/cal-real.txt" 2>&1; echo "rc $?"
cat "$R/cal-real.txt"
stamp "calibrate: our CUDA backend"
timeout 90 "$CLI" run --backend=cuda tests/gpu/calibrate.py >"$R/cal-ours.txt" 2>&1; echo "rc $?"
cat "$R/cal-ours.txt"
stamp "calibrate: our CUDA backend, event timing"
TENSORSCOPE_TIMING=events timeout 60 "$CLI" run --backend=cuda tests/gpu/calibrate.py small_kernels >"$R/cal-ours-events.txt" 2>&1
cat "$R/cal-ours-events.txt"

stamp "CUPTI overhead per launch"
timeout 30 "$B/launch-loop" 100000
timeout 60 "$CLI" record -o "$R/launch-loop.trace" -- "$B/launch-loop" 100000; echo "rc $?"
ls -la "$R/launch-loop.trace"
timeout 30 "$CLI" info "$R/launch-loop.trace" 2>&1 | head -20
rm -f "$R/launch-loop.trace"

stamp "parallel block"
( TS_TEST_BACKEND=cuda timeout 200 "$B/tests/test-seed-examples" --tap >"$R/seed-hw.tap" 2>&1
  echo "seed-hw rc $?" >>"$R/seed-hw.tap" ) &
( for k in plain expandable graph; do
    conf=; [ $k = expandable ] && conf=expandable_segments:True
    REAL_FILES_KIND=$k PYTORCH_CUDA_ALLOC_CONF=$conf env -u LD_LIBRARY_PATH timeout 60 "$PY" tests/gpu/real-files.py "$R/real" >>"$R/real-files.txt" 2>&1
  done ) &
mkdir -p "$R/ex"
ls data/examples/*.py | xargs -P 4 -I{} sh -c '
  n=$(basename {} .py); d='"$R/ex"'
  timeout 60 '"$CLI"' record -o $d/$n.real.trace -- '"$PY"' {} >$d/$n.real.out 2>$d/$n.real.err; echo "rc $?" >>$d/$n.real.err
  gzip -f $d/$n.real.trace 2>/dev/null
  timeout 60 '"$CLI"' run --gpu-model h100 --gpus 1 {} >$d/$n.sim.out 2>$d/$n.sim.err; echo "rc $?" >>$d/$n.sim.err
  timeout 60 '"$CLI"' run --backend=cuda {} >$d/$n.hw.out 2>$d/$n.hw.err; echo "rc $?" >>$d/$n.hw.err' &
mkdir -p "$R/wl"
ls tests/workloads/sim/*.py tests/workloads/api/*.py | xargs -P 6 -I{} sh -c '
  n=$(basename {} .py); d='"$R/wl"'; e=${0%.py}.env; [ -f $e ] && set -a && . $e && set +a
  cd $(dirname {}) && timeout 40 env -u LD_LIBRARY_PATH '"$PY"' $n.py >$d/$n.out 2>$d/$n.err; echo "rc $?" >>$d/$n.err' {} &
wait
stamp "parallel block done"
grep -cE '^ok' "$R/seed-hw.tap"; grep -E '^not ok|rc ' "$R/seed-hw.tap" | head -40
cat "$R/real-files.txt"; ls -la "$R/real"
for f in data/examples/*.py; do
  n=$(basename "$f" .py)
  a=$(grep -E 'memory|allocated|reserved|segment' "$R/ex/$n.real.out" | md5sum | cut -c1-8)
  b=$(grep -E 'memory|allocated|reserved|segment' "$R/ex/$n.sim.out" | md5sum | cut -c1-8)
  c=$(grep -E 'memory|allocated|reserved|segment' "$R/ex/$n.hw.out" | md5sum | cut -c1-8)
  echo "$n real=$a sim=$b hw=$c $(tail -1 "$R/ex/$n.real.err") / $(tail -1 "$R/ex/$n.sim.err") / $(tail -1 "$R/ex/$n.hw.err")"
done
stamp "pack"
tar -C "$OUT" -cJf "$OUT/results.tar.xz" r && rm -rf "$R"
stamp "done"
