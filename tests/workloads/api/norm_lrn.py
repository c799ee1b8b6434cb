import torch, torch.nn as nn, torch.nn.functional as F
from nncheck import errors, on_devices, r


def run(dev):
    torch.manual_seed(0)
    for shape, size in (((2, 5, 3), 3), ((2, 6, 3, 4), 2), ((1, 4, 2, 2, 3), 5)):
        x = torch.randn(*shape).to(dev).requires_grad_()
        y = F.local_response_norm(x, size, alpha=0.1, beta=0.6, k=1.5)
        (y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape).to(dev) / 10).sum().backward()
        print("lrn", shape, size, tuple(y.shape), r(y)[:10], r(x.grad)[:10])
    m = nn.LocalResponseNorm(2)
    print(m, r(m(torch.randn(1, 3, 2, 2).to(dev)))[:6])
    i3 = nn.InstanceNorm3d(2, affine=True).to(dev)
    x = torch.randn(2, 2, 2, 3, 2).to(dev).requires_grad_()
    y = i3(x)
    y.pow(2).sum().backward()
    print(i3, y.grad_fn.name(), r(y)[:8], r(x.grad)[:8], r(i3.weight.grad))
    print("unbatched", r(i3(torch.randn(2, 2, 3, 2).to(dev)))[:6])
    errors([lambda: F.local_response_norm(torch.randn(2, 3).to(dev), 2),
            lambda: i3(torch.randn(2, 3).to(dev))])


on_devices(run)
