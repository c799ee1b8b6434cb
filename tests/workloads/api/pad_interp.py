import torch, torch.nn as nn, torch.nn.functional as F
from nncheck import errors, on_devices, r


def check(name, f, x):
    x = x.detach().requires_grad_()
    y = f(x)
    w = torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape).to(y.device) / 10
    (y * w).sum().backward()
    node = y.grad_fn.name() if "circular" not in name else "-"
    print(name, node, tuple(y.shape), r(y)[:12], r(x.grad)[:12], round(x.grad.double().sum().item(), 3))


def run(dev):
    torch.manual_seed(0)
    x4 = torch.randn(2, 2, 4, 5).to(dev)
    x3 = torch.randn(2, 3, 5).to(dev)
    check("const", lambda x: F.pad(x, (1, 2)), x4)
    check("const2", lambda x: F.pad(x, (1, 2, 0, 1), value=2.5), x4)
    check("crop", lambda x: F.pad(x, (1, -1, -1, 2)), x4)
    check("const3", lambda x: F.pad(x, (1, 1, 1, 1, 1, 1)), x4)
    check("const5", lambda x: F.pad(x, (1, 0, 0, 1, 1, 0, 0, 1, 1, 1), value=-1), x4.reshape(2, 2, 1, 4, 5))
    check("reflect1", lambda x: F.pad(x, (2, 3), "reflect"), x3)
    check("reflect2", lambda x: F.pad(x, (1, 1, 2, 0), "reflect"), x4)
    check("reflect2u", lambda x: F.pad(x, (1, 2, 1, 1), "reflect"), x3)
    check("replicate1", lambda x: F.pad(x, (2, 1), "replicate"), x3)
    check("replicate2", lambda x: F.pad(x, (1, 1, 2, 0), "replicate"), x4)
    check("circular1", lambda x: F.pad(x, (1, 2), "circular"), x3)
    check("circular2", lambda x: F.pad(x, (1, 1, 2, 0), "circular"), x4)
    check("nearest2", lambda x: F.interpolate(x, scale_factor=2), x4)
    check("nearest2s", lambda x: F.interpolate(x, size=(5, 7)), x4)
    check("nearest2f", lambda x: F.interpolate(x, scale_factor=1.5), x4)
    check("nearest1", lambda x: F.interpolate(x, size=7), x3)
    check("bilinear", lambda x: F.interpolate(x, size=(5, 7), mode="bilinear"), x4)
    check("bilinear_ac", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True), x4)
    check("bilinear_down", lambda x: F.interpolate(x, size=(3, 2), mode="bilinear"), x4)
    check("bilinear_sf", lambda x: F.interpolate(x, scale_factor=1.7, mode="bilinear"), x4)
    check("linear", lambda x: F.interpolate(x, size=8, mode="linear"), x3)
    check("linear_ac", lambda x: F.interpolate(x, size=8, mode="linear", align_corners=True), x3)
    check("upsample", nn.Upsample(scale_factor=2, mode="bilinear").to(dev), x4)
    check("zeropad", nn.ZeroPad2d((1, 0, 2, 1)).to(dev), x4)
    check("reflpad", nn.ReflectionPad2d(1).to(dev), x4)
    check("reppad", nn.ReplicationPad1d((0, 3)).to(dev), x3)
    y = F.pixel_shuffle(torch.arange(32.0).reshape(1, 8, 2, 2).to(dev), 2)
    print("pixel_shuffle", tuple(y.shape), r(y))
    print("pixel_unshuffle", r(F.pixel_unshuffle(y, 2)))
    print("int pad", F.pad(torch.arange(6).reshape(2, 3).to(dev), (1, 1), value=-1).tolist())
    print(nn.ZeroPad2d(2), nn.ConstantPad2d(1, 3.5), nn.ReflectionPad2d(1), nn.ReplicationPad2d((1, 0, 2, 1)),
          nn.ConstantPad1d(2, 1.0), nn.ReflectionPad1d(2), nn.ReplicationPad1d(1), nn.PixelShuffle(2),
          nn.Upsample(scale_factor=2), nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True))
    errors([lambda: F.pad(x3, (5, 1), "reflect"), lambda: F.pad(x4, (1, 1, 4, 1), "reflect"),
            lambda: F.pad(x3, (6, 1), "circular"), lambda: F.pad(x3, (1, 1), "replicate", value=1),
            lambda: F.pad(x3, (1, 1, 1, 1, 1, 1, 1, 1)), lambda: F.pad(x4, (1, 2, 3)),
            lambda: F.pad(x4, (1, 1), "foo"), lambda: F.pad(x4, (-3, -3)), lambda: F.pad(x4, (1, 1), "reflect"),
            lambda: F.interpolate(x4, size=3, scale_factor=2), lambda: F.interpolate(x4),
            lambda: F.interpolate(x4, scale_factor=2, align_corners=True),
            lambda: F.interpolate(x4, size=(2, 3, 4))])


on_devices(run)
