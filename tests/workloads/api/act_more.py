import torch, torch.nn as nn, torch.nn.functional as F
from nncheck import errors, on_devices, r


def run(dev):
    torch.manual_seed(0)
    base = torch.cat([torch.randn(10) * 4, torch.tensor([-3.0, 3.0, 0.0, 6.0, -1.0, 1.0, 7.0, -5.0])])
    for name, f in [("hardtanh", lambda x: F.hardtanh(x)), ("hardtanh2", lambda x: F.hardtanh(x, -2.0, 2.5)),
                    ("relu6", F.relu6), ("hardswish", F.hardswish), ("hardsigmoid", F.hardsigmoid),
                    ("mish", F.mish), ("logsigmoid", F.logsigmoid), ("softsign", F.softsign),
                    ("tanhshrink", F.tanhshrink), ("threshold", lambda x: F.threshold(x, 0.5, -2.0)),
                    ("celu", lambda x: F.celu(x, 0.7)), ("selu", F.selu), ("celu1", F.celu),
                    ("elu", lambda x: F.elu(x, 0.5)), ("softsign", F.softsign), ("tanhshrink", F.tanhshrink),
                    ("softmin", lambda x: F.softmin(x.reshape(3, 6), dim=1))]:
        x = base.clone().to(dev).requires_grad_()
        y = f(x)
        (y * torch.arange(y.numel(), dtype=torch.float32).reshape(y.shape).to(dev)).sum().backward()
        print(name, y.grad_fn.name() if name not in ("softsign", "tanhshrink") else "-", r(y), r(x.grad))
    x = torch.randn(4, 6).to(dev).requires_grad_()
    y = F.glu(x, 1)
    y.sum().backward()
    print("glu", y.grad_fn.name(), r(y), r(x.grad))
    x = torch.randn(2, 4, 3).double().to(dev).requires_grad_()
    y = F.glu(x, -2)
    (y * y).sum().backward()
    print("glu3", r(y, 8), r(x.grad, 8), nn.GLU(0)(torch.ones(4, 2).to(dev)).shape)
    m = nn.PReLU(3).to(dev)
    with torch.no_grad():
        m.weight.copy_(torch.tensor([0.1, 0.2, -0.3]))
    x = torch.randn(2, 3, 4).to(dev).requires_grad_()
    y = m(x)
    (y * y).sum().backward()
    print("prelu", y.grad_fn.name(), r(y), r(x.grad), r(m.weight.grad), sorted(m.state_dict().keys()))
    m1 = nn.PReLU().to(dev)
    y = m1(x)
    y.sum().backward()
    print("prelu1", r(y[0]), r(m1.weight.grad))
    nan = torch.tensor([float("nan"), 1.0, -4.0]).to(dev)
    print("nan", [str(F.hardtanh(nan)[0].item()), str(F.hardsigmoid(nan)[0].item()), str(F.hardswish(nan)[0].item()),
                  str(F.threshold(nan, 0.0, 5.0)[0].item()), str(F.mish(nan)[0].item()), str(F.relu6(nan)[0].item())])
    xd = torch.randn(6).double().to(dev).requires_grad_()
    y = F.mish(xd) + F.selu(xd) + F.logsigmoid(xd) + F.hardswish(xd)
    y.sum().backward()
    print("f64", r(y, 10), r(xd.grad, 10))
    print("ints", F.hardtanh(torch.arange(-3, 4).to(dev)).tolist(), F.threshold(torch.arange(-3, 4).to(dev), 0, 9).tolist())
    x = torch.randn(5).to(dev)
    y = x.clone()
    F.relu6(y, inplace=True)
    print("inplace", r(y), r(F.hardswish(x)), r(nn.Hardsigmoid(inplace=True)(x.clone())))
    print(nn.Mish(), nn.Hardswish(), nn.Hardsigmoid(), nn.ReLU6(), nn.ReLU6(True), nn.PReLU(), nn.PReLU(4),
          nn.Softsign(), nn.Tanhshrink(), nn.Threshold(0.1, 20.0), nn.GLU(), nn.LogSigmoid(), nn.Softmin(dim=1),
          nn.Hardtanh(), nn.Hardtanh(-2.0, 2.0, True), nn.CELU(), nn.CELU(0.5), nn.SELU(), nn.SELU(True))
    errors([lambda: F.glu(torch.randn(3, 5).to(dev), 1), lambda: nn.PReLU(4).to(dev)(torch.randn(2, 3).to(dev)),
            lambda: F.hardtanh(torch.randn(2).to(dev), 2.0, 1.0)])


on_devices(run)
