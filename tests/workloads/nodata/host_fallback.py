# On a real GPU (tests/test-nodata.c runs it on the fake CUDA module with a
# 64 MiB host-memory budget), take() has no device kernel: it computes on
# the host over copies of its operands, 40 MiB of them here, which do not
# fit beside the ones already held. The launch raises, the workload goes on.
import torch

MB = 1 << 20
held = torch.empty(30 * MB, dtype=torch.uint8)
x = torch.zeros(36 * MB, dtype=torch.uint8, device="cuda")
idx = torch.zeros(MB // 2, dtype=torch.int64, device="cuda")
try:
    x.take(idx)
    print("no error")
except RuntimeError as err:
    print("RuntimeError:", err)
del held
print(x.take(idx).shape)
print("the workload goes on", torch.ones(3, device="cuda").sum().item())
