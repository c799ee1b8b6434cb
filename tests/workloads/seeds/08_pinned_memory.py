# Seed example 08 (adapted from PyTorch's CUDA semantics notes).
# Pinned host buffers: a pinned non_blocking copy leaves the host free,
# a pageable one makes it wait. The printed ids differ from run to run.
# What it must print is in 08_pinned_memory.expected.
import torch
from torch.utils.data._utils.pin_memory import pin_memory
x = torch.Tensor([[1, 2, 4], [5, 7, 9], [3, 7, 10]])
y = pin_memory(x)
z = x.pin_memory()
print("id: {}".format(id(x)))
print("id: {}".format(id(y)))
print("id: {}".format(id(z)))
a = z.cuda(non_blocking=True)
print(a)
print("is_pinned: {}/{}".format(x.is_pinned(), z.is_pinned()))

big = torch.randn(1024, 1024)
pageable = big.cuda()                               # host waits
pinned = big.pin_memory().cuda(non_blocking=True)  # host does not wait
torch.cuda.synchronize()
