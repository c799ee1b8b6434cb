# CUDA_VISIBLE_DEVICES=2,0 (see visible_devices.env): two devices, renumbered;
# CUDA_LAUNCH_BLOCKING=1: every launch waits for its work.
import torch

print(torch.cuda.device_count())
x = torch.ones(3, device='cuda:1')
print(x.device, x.sum().item())
try:
    torch.ones(1, device='cuda:2')
except RuntimeError as err:
    print("RuntimeError:", str(err).splitlines()[0])
