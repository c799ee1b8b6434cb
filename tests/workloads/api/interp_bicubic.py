"""Bicubic interpolation: values agree with PyTorch 1.13's CPU kernel to
about 1e-6 (its weights round differently in the last bits): printed to
3 decimals."""

import torch, torch.nn.functional as F
from nncheck import on_devices, r


def run(dev):
    torch.manual_seed(0)
    x4 = torch.randn(2, 2, 4, 5).to(dev)
    for name, f in [("up", lambda x: F.interpolate(x, scale_factor=2, mode="bicubic")),
                    ("size", lambda x: F.interpolate(x, size=(7, 3), mode="bicubic")),
                    ("ac", lambda x: F.interpolate(x, size=(6, 9), mode="bicubic", align_corners=True)),
                    ("sf", lambda x: F.interpolate(x, scale_factor=1.6, mode="bicubic")),
                    ("same", lambda x: F.interpolate(x, size=(4, 5), mode="bicubic"))]:
        x = x4.detach().requires_grad_()
        y = f(x)
        (y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape).to(dev) / 10).sum().backward()
        print(name, y.grad_fn.name(), tuple(y.shape), r(y, 3)[:10], r(x.grad, 3)[:10],
              round(x.grad.double().sum().item(), 2))


on_devices(run)
