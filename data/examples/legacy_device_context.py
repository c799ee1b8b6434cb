# The legacy typed constructors.
#
# Old code builds CUDA tensors with torch.cuda.FloatTensor, which follows
# the current device just like device='cuda'. (The original page also used
# an `async=True` argument; `async` became a keyword in Python 3.7 and the
# argument is now called non_blocking.) Run with 3 GPUs or more; the output
# should be:
#   0 0
#   1 1
#   1 0
#   2
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
