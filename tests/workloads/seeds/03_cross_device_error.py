# Seed example 03 (adapted from PyTorch's CUDA semantics notes).
# Arithmetic across two GPUs must fail with PyTorch's device message, while
# copy_() between them is allowed.
# What it must print is in 03_cross_device_error.expected.
import torch
a = torch.ones(4, device='cuda:0')
b = torch.zeros(4, device='cuda:1')
b.copy_(a)
print("copy ok", b.device)
try:
    a + b
except RuntimeError as err:
    print("RuntimeError:", err)
