# The time of one matmul per dtype on the simulated H100 is the roofline
# of docs/simulation-model.md: kernel overhead + the longer of bytes over
# the memory bandwidth and flops over the dtype's dense rate (FP32; TF32
# when torch.backends.cuda.matmul.allow_tf32; FP16 and BF16 on the tensor
# cores; FP64 on the FP64 ones). Measured with CUDA events around the
# matmul, behind a long memset so that the stream, not the host, sets its
# start. Run with --no-data: nothing is computed, only timed.
import math

import torch

OVERHEAD_NS = 2500
BANDWIDTH = 3.0e12
RATES = {"fp32": 67e12, "tf32": 399e12, "fp16": 798e12, "bf16": 798e12, "fp64": 67e12}
DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
          "bf16": torch.bfloat16, "fp64": torch.float64}


def predicted_ns(m, n, k, math_name):
    size = torch.empty(0, dtype=DTYPES[math_name]).element_size()
    flops = 2 * m * n * k
    bytes_ = size * (m * k + k * n + m * n)
    return OVERHEAD_NS + max(math.ceil(bytes_ * 1e9 / BANDWIDTH),
                             math.ceil(flops * 1e9 / RATES[math_name]))


busy = torch.empty(2 ** 30, dtype=torch.uint8, device="cuda")
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
# a compute-bound square product, and a memory-bound outer-ish one
for m, n, k in [(4096, 4096, 4096), (8192, 8192, 64)]:
    for name in ("fp32", "tf32", "fp16", "bf16", "fp64"):
        torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
        a = torch.empty(m, k, dtype=DTYPES[name], device="cuda")
        b = torch.empty(k, n, dtype=DTYPES[name], device="cuda")
        busy.zero_()
        start.record()
        c = a @ b
        end.record()
        end.synchronize()
        got = start.elapsed_time(end)
        want = predicted_ns(m, n, k, name) / 1e6
        print("%dx%dx%d %s: %.4f ms, formula %.4f ms, %s" % (m, n, k, name, got, want,
              "equal" if abs(got - want) < 1e-6 * want + 1e-6 else "DIFFERENT"))
        del a, b, c
torch.backends.cuda.matmul.allow_tf32 = False

# attention's math path: its two bmm's run at the bf16 rate under autocast
q = torch.empty(8, 12, 1024, 64, device="cuda")
busy.zero_()
start.record()
with torch.autocast("cuda", dtype=torch.bfloat16):
    torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
end.record()
end.synchronize()
print("sdpa 8x12x1024x64 under bf16 autocast: %.4f ms" % start.elapsed_time(end))
