import torch, torch.nn as nn, torch.nn.functional as F
from nncheck import errors, on_devices, r


def run(dev):
    torch.manual_seed(0)
    x = torch.randn(2, 8, 2, 3).to(dev).requires_grad_()
    y = F.pixel_shuffle(x, 2)
    (y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape).to(dev)).sum().backward()
    print("shuffle", y.grad_fn.name(), tuple(y.shape), r(y)[:12], r(x.grad)[:12])
    z = torch.randn(3, 2, 4, 6).double().to(dev).requires_grad_()
    u = nn.PixelUnshuffle(2)(z)
    (u * u).sum().backward()
    print("unshuffle", u.grad_fn.name(), tuple(u.shape), r(u, 8)[:12], r(z.grad, 8)[:12])
    print("round trip", torch.equal(F.pixel_shuffle(F.pixel_unshuffle(z, 2), 2), z),
          F.pixel_shuffle(torch.arange(16).reshape(4, 2, 2).to(dev), 2).tolist())
    print(nn.PixelShuffle(3), nn.PixelUnshuffle(2))
    errors([lambda: F.pixel_shuffle(torch.randn(2, 3).to(dev), 2),
            lambda: F.pixel_shuffle(torch.randn(1, 6, 2, 2).to(dev), 2),
            lambda: F.pixel_unshuffle(torch.randn(1, 1, 3, 4).to(dev), 2),
            lambda: F.pixel_unshuffle(torch.randn(1, 1, 4, 3).to(dev), 2),
            lambda: F.pixel_shuffle(torch.randn(1, 4, 2, 2).to(dev), 0)])


on_devices(run)
