import warnings
import torch, torch.nn as nn, torch.nn.functional as F
from nncheck import errors, on_devices, r


def run(dev):
    torch.manual_seed(0)
    base = torch.cat([torch.randn(8), torch.tensor([0.5, -0.5, 0.3, -0.3, 0.0])])
    for name, f in [("hardshrink", F.hardshrink), ("hardshrink3", lambda x: F.hardshrink(x, 0.3)),
                    ("softshrink", F.softshrink), ("softshrink3", lambda x: F.softshrink(x, 0.3)),
                    ("Hardshrink", nn.Hardshrink(0.2)), ("Softshrink", nn.Softshrink(0.25))]:
        x = base.clone().to(dev).requires_grad_()
        y = f(x)
        (y * torch.arange(y.numel(), dtype=torch.float32).to(dev)).sum().backward()
        print(name, y.grad_fn.name(), r(y), r(x.grad))
    x = torch.randn(2, 3, 2, 2).to(dev)
    print("softmax2d", r(nn.Softmax2d()(x)[0, :, 0, 0]), r(nn.Softmax2d()(x[0])[:, 1, 1]))
    x4 = torch.randn(1, 2, 3, 4).to(dev).requires_grad_()
    y = nn.UpsamplingBilinear2d(scale_factor=2)(x4)
    y.sum().backward()
    print("ubil", y.grad_fn.name(), tuple(y.shape), r(y)[:8], r(x4.grad)[:8])
    y = nn.UpsamplingNearest2d(size=(5, 7))(x4)
    print("unear", y.grad_fn.name(), tuple(y.shape), r(y)[:8])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        print("fup", r(F.upsample_bilinear(x4, scale_factor=2))[:6], r(F.upsample_nearest(x4, size=(4, 5)))[:6])
    print(nn.Hardshrink(), nn.Softshrink(0.3), nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=(3, 4)),
          nn.Softmax2d())
    errors([lambda: F.softshrink(x, -1.0), lambda: nn.Softmax2d()(torch.randn(2, 3).to(dev))])


on_devices(run)
