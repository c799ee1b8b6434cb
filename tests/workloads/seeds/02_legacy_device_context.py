# Seed example 02 (adapted from PyTorch's CUDA semantics notes).
# The old typed constructors (torch.cuda.FloatTensor and friends) and
# get_device() under a device context. Uses three GPUs. (Python 3.7 made the
# old `async=True` spelling a syntax error; non_blocking=True replaced it.)
# What it must print is in 02_legacy_device_context.expected.
import torch
x = torch.cuda.FloatTensor(1)
y = torch.FloatTensor(1).cuda()
print(x.get_device(), y.get_device())

with torch.cuda.device(1):
    a = torch.cuda.FloatTensor(1)
    b = torch.FloatTensor(1).cuda()
    print(a.get_device(), b.get_device())
    c = a + b
    z = x + y
    print(c.get_device(), z.get_device())
    d = torch.randn(2).cuda(2)
    print(d.get_device())
