# Launch-bound ops on the measured H200 profile: each x.add_(1) costs PyTorch's
# dispatch (2100 ns) and the launch (3900 ns) of host time, and its kernel
# 900 ns on the device, so the stream is idle between kernels. On a real H200
# with PyTorch 2.11 the same loop took 6109 ns per op (docs/gpu-measurements.md).
import torch

x = torch.zeros(1, device="cuda")
torch.cuda.synchronize()
start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(1000):
    x.add_(1)
end.record()
end.synchronize()
print(torch.cuda.get_device_name(), x.item())
print("ns per op:", round(start.elapsed_time(end) * 1e6 / 1000))
