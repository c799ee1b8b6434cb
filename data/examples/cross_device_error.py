# Mixing devices in one operation is an error.
#
# copy_() (and to(), cuda()) may move data between GPUs, but arithmetic
# needs every operand on the same device. The addition below fails with a
# RuntimeError naming both devices, while the copy before it succeeds:
#   copy ok cuda:1
#   RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!
import torch
a = torch.ones(4, device='cuda:0')
b = torch.zeros(4, device='cuda:1')
b.copy_(a)
print("copy ok", b.device)
try:
    a + b
except RuntimeError as err:
    print("RuntimeError:", err)
