import torch, torch.nn as nn, torch.nn.functional as F
from nncheck import on_devices


def run(dev):
    torch.manual_seed(0)
    r = lambda t: [round(v, 2) for v in t.float().flatten().tolist()[:6]]
    x = torch.randn(4, 3, 5, 5).to(dev).to(torch.bfloat16).requires_grad_()
    bn = nn.BatchNorm2d(3).to(dev)
    y = bn(x)
    (y.float() * torch.arange(y.numel()).reshape(y.shape).to(dev) / 100).sum().backward()
    print("mixed", y.dtype, r(y), r(x.grad), r(bn.running_var), r(bn.weight.grad), bn.running_mean.dtype)


on_devices(run)
