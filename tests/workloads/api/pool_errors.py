import torch, torch.nn as nn, torch.nn.functional as F
from nncheck import on_devices


def t(name, f):
    try:
        y = f()
        print(name, "ok", tuple(y.shape) if hasattr(y, "shape") else y)
    except Exception as e:
        print(name, type(e).__name__, e)


def run(dev):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 6, 6).to(dev)
    t("pad>half", lambda: F.max_pool2d(x, 2, padding=2))
    t("k0", lambda: F.max_pool2d(x, 0))
    t("s0", lambda: F.max_pool2d(x, 2, stride=0))
    t("d0", lambda: F.max_pool2d(x, 2, dilation=0))
    t("too small", lambda: F.max_pool2d(x, 7))
    t("2d input", lambda: F.max_pool2d(torch.randn(6, 6).to(dev), 2))
    t("avg pad", lambda: F.avg_pool2d(x, 2, padding=2))
    t("avg small", lambda: F.avg_pool2d(x, 7))
    t("divisor 0", lambda: F.avg_pool2d(x, 2, divisor_override=0))
    t("adaptive 1d in", lambda: F.adaptive_avg_pool2d(torch.randn(6).to(dev), 2))
    t("mp1 1d in", lambda: F.max_pool1d(torch.randn(6).to(dev), 2))
    t("ap1 small", lambda: F.avg_pool1d(torch.randn(2, 3, 6).to(dev), 7))
    t("bn 1 value", lambda: F.batch_norm(torch.randn(1, 3).to(dev), None, None, training=True))
    t("bn2d 3d", lambda: nn.BatchNorm2d(3).to(dev)(torch.randn(3, 4, 4).to(dev)))
    t("bn1d 4d", lambda: nn.BatchNorm1d(3).to(dev)(torch.randn(3, 4, 4, 4).to(dev)))
    t("bn rm size", lambda: F.batch_norm(torch.randn(4, 3).to(dev), torch.zeros(4).to(dev), torch.ones(4).to(dev),
                                         training=True))
    t("3d chan 3 unbatched", lambda: F.max_pool2d(torch.randn(3, 6, 6).to(dev), 2))
    t("ceil", lambda: F.max_pool2d(torch.randn(1, 1, 5, 5).to(dev), 2, ceil_mode=True))
    t("ceil pad", lambda: F.avg_pool2d(torch.randn(1, 1, 5, 5).to(dev), 3, 2, 1, ceil_mode=True))
    t("ints", lambda: F.max_pool2d(torch.arange(16).reshape(1, 1, 4, 4).to(dev), 2))
    t("area", lambda: F.interpolate(x, size=(4, 3), mode="area").sum().item() != 0)
    t("area sf", lambda: F.interpolate(x, scale_factor=0.5, mode="area"))
    xi = torch.arange(16).reshape(1, 1, 4, 4).to(dev)
    t("aap long", lambda: F.adaptive_avg_pool2d(xi, 2))
    t("amp long", lambda: F.adaptive_max_pool2d(xi, 2))
    t("bn long", lambda: F.batch_norm(xi, None, None, training=True))
    t("gn long", lambda: F.group_norm(xi, 1))
    t("bilinear long", lambda: F.interpolate(xi, scale_factor=2, mode="bilinear"))
    t("linear long", lambda: F.interpolate(xi[0], scale_factor=2, mode="linear"))
    t("nearest long", lambda: F.interpolate(xi, scale_factor=2))
    t("reflect long", lambda: F.pad(xi, (1, 1, 1, 1), "reflect"))
    t("bool mp", lambda: F.max_pool2d(xi > 3, 2))
    t("bn eval no stats", lambda: F.batch_norm(torch.randn(2, 3).to(dev), None, None, training=False))
    t("bn eval no var", lambda: F.batch_norm(torch.randn(2, 3).to(dev), torch.zeros(3).to(dev), None))
    t("bn weight size", lambda: F.batch_norm(torch.randn(2, 3).to(dev), None, None, torch.ones(4).to(dev),
                                             training=True))
    t("bn 1d", lambda: F.batch_norm(torch.randn(2).to(dev), None, None, training=True))
    t("nearest uint8", lambda: F.interpolate(xi.to(torch.uint8), scale_factor=2).sum().item())
    y = F.interpolate(x.requires_grad_(), size=(4, 3), mode="area")
    print("area", y.grad_fn.name(), [round(v, 4) for v in y.flatten()[:6].tolist()])


on_devices(run)
