#!/usr/bin/env bash
# Regenerates tests/data/gallery-traces.sha256: the SHA-256 of the trace each
# gallery example writes, run from the source root as test-gallery-traces
# runs it. Only for a change that means to alter traces; say why in its commit.
set -eu
cd "$(dirname "$0")/.."
builddir=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for script in data/examples/*.py; do
  name=$(basename "$script" .py)
  # NoData=true examples (big models run with --no-data) write long traces
  # whose bytes vary between runs: two runs export the same Chrome trace,
  # but records reach the file in an order that is not repeatable.
  # tests/workloads/seeds checks their output instead.
  if awk -v f="File=$name.py" '/^\[/{g=0} $0==f{g=1} g&&/^NoData=true/{found=1} END{exit !found}' \
       data/examples/examples.desktop.in; then
    continue
  fi
  env -u CUDA_VISIBLE_DEVICES -u PYTORCH_CUDA_ALLOC_CONF -u CUDA_LAUNCH_BLOCKING \
      -u TORCH_CUDA_SANITIZER -u TENSORSCOPE_BACKEND -u TENSORSCOPE_NO_DATA \
      -u TENSORSCOPE_HOST_MEMORY_LIMIT -u CUBLAS_WORKSPACE_CONFIG -u CUBLASLT_WORKSPACE_SIZE \
      -u TORCH_CUBLASLT_UNIFIED_WORKSPACE -u DISABLE_ADDMM_CUDA_LT \
      "$builddir/src/cli/tensorscope-cli" run -o "$tmp/$name.tstrace" "$script" >/dev/null 2>&1 || true
  echo "$(sha256sum < "$tmp/$name.tstrace" | cut -d' ' -f1)  $name"
done > tests/data/gallery-traces.sha256
