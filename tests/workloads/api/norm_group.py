import torch, torch.nn as nn, torch.nn.functional as F
from nncheck import errors, on_devices, r


def rms_ref(x, shape, w, eps):
    # PyTorch 2's F.rms_norm; 1.13 (the oracle) has none
    if hasattr(F, "rms_norm"):
        return F.rms_norm(x, shape, w, eps)
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    dims = tuple(range(x.dim() - len(shape), x.dim()))
    out = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    return out * w if w is not None else out


def run(dev):
    torch.manual_seed(0)
    gn = nn.GroupNorm(2, 4).to(dev)
    print(gn, sorted(gn.state_dict().keys()))
    with torch.no_grad():
        gn.weight.copy_(torch.tensor([1.0, 2.0, 0.5, -1.0]))
        gn.bias.copy_(torch.tensor([0.0, 0.1, -0.2, 0.3]))
    x = torch.randn(3, 4, 5, 2).to(dev).requires_grad_()
    y = gn(x)
    (y * y).sum().backward()
    print("gn", r(y[0, :, 0]), r(x.grad[1, :, 1]), r(gn.weight.grad), r(gn.bias.grad))
    x = torch.randn(2, 6, 7).to(dev).requires_grad_()
    y = F.group_norm(x, 3)
    y.pow(3).sum().backward()
    print("gnf", y.grad_fn.name(), r(y[1, :, 0]), r(x.grad[0, :, 2]))
    g2 = nn.GroupNorm(3, 6, affine=False).to(dev)
    print(g2, sorted(g2.state_dict().keys()))
    x = torch.randn(2, 6).double().to(dev).requires_grad_()
    y = g2(x)
    (y * torch.arange(12.0).double().reshape(2, 6).to(dev)).sum().backward()
    print("gn64", y.grad_fn.name(), r(y, 8), r(x.grad, 8))
    w = torch.randn(4).to(dev).requires_grad_()
    x = torch.randn(2, 4, 3).to(dev)
    y = F.group_norm(x, 4, w, None, 1e-3)
    y.pow(2).sum().backward()
    print("gnw", r(y[0]), r(w.grad))
    inn = nn.InstanceNorm2d(3).to(dev)
    print(inn, nn.InstanceNorm1d(4, affine=True), sorted(nn.InstanceNorm1d(4, affine=True).state_dict().keys()))
    x = torch.randn(2, 3, 4, 4).to(dev).requires_grad_()
    y = inn(x)
    (y * torch.arange(16.0).reshape(4, 4).to(dev)).sum().backward()
    print("in", y.grad_fn.name(), r(y[1, :, 0]), r(x.grad[0, :, 1]))
    in1 = nn.InstanceNorm1d(3, affine=True, track_running_stats=True).to(dev)
    for _ in range(2):
        y = in1(torch.randn(2, 3, 6).to(dev))
    print("in1", r(y[0, 0]), r(in1.running_mean), r(in1.running_var))
    in1.eval()
    print("in1 eval", r(in1(torch.randn(3, 6).to(dev))[0]))
    rn = nn.RMSNorm(4) if hasattr(nn, "RMSNorm") else None
    print("RMSNorm((4,), eps=None, elementwise_affine=True)" if rn is None else rn)
    x = torch.randn(3, 4).to(dev).requires_grad_()
    w = torch.tensor([1.0, 2.0, 0.5, -1.0]).to(dev).requires_grad_()
    y = rms_ref(x, (4,), w, None)
    y.pow(2).sum().backward()
    print("rms", r(y), r(x.grad), r(w.grad))
    x = torch.randn(2, 3, 4).double().to(dev).requires_grad_()
    y = rms_ref(x, (3, 4), None, 1e-3)
    y.sum().backward()
    print("rms64", r(y[0], 8), r(x.grad[1], 8))
    errors([lambda: F.group_norm(torch.randn(2, 3, 4).to(dev), 2),
            lambda: F.group_norm(torch.randn(2, 4, 4).to(dev), 2, torch.ones(3).to(dev)),
            lambda: F.group_norm(torch.randn(1, 4, 1).to(dev), 4),
            lambda: nn.InstanceNorm2d(3)(torch.randn(3, 1, 1).to(dev)),
            lambda: nn.InstanceNorm2d(3)(torch.randn(3, 1).to(dev))])


on_devices(run)
