# Gradients of asin, acos, acosh, atanh, erfinv, remainder, fmod, prod
# (zeros in the input handled as PyTorch does: none, one, several),
# cumprod (with and without zeros) and cummax/cummin (#15), on the CPU and
# on DEV. The expected output is what Debian's python3-torch 1.13 prints.
import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t):
    return [round(v, 4) + 0.0 for v in t.reshape(-1).cpu().tolist()]


def grad_of(f, base, dev, weight=True):
    x = base.detach().to(dev).requires_grad_()
    y = f(x)
    w = torch.arange(1.0, y.numel() + 1).reshape(y.shape).to(dev) if weight else 1.0
    (y * w).sum().backward()
    return y.grad_fn.name(), r(x.grad)


for dev in ("cpu", DEV):
    torch.manual_seed(0)
    u = torch.rand(2, 3) * 1.6 - 0.8
    print(grad_of(torch.asin, u, dev))
    print(grad_of(torch.acos, u, dev))
    print(grad_of(torch.atanh, u, dev))
    print(grad_of(torch.erfinv, u, dev))
    print(grad_of(torch.acosh, u.abs() + 1.5, dev))

    a = torch.randn(2, 3) * 3
    b = torch.rand(2, 3) + 0.5
    print(grad_of(lambda x: torch.remainder(x, 0.7), a, dev))
    print(grad_of(lambda x: torch.fmod(x, 0.7), a, dev))
    for f in (torch.remainder, torch.fmod):
        x = a.detach().to(dev).requires_grad_()
        y = b.detach().to(dev).requires_grad_()
        z = f(x, y)
        (z * torch.arange(6.0).reshape(2, 3).to(dev)).sum().backward()
        print(z.grad_fn.name(), r(x.grad), r(y.grad))
    x = a.detach().to(dev).requires_grad_()
    z = x % b.to(dev)
    print(z.grad_fn.name())

    p = torch.tensor([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]])
    p1 = torch.tensor([[1.5, 0.0, 0.5], [3.0, 0.25, -1.0]])
    p2 = torch.tensor([[1.5, 0.0, 0.5], [0.0, 0.25, -1.0]])
    for base in (p, p1, p2):
        print(grad_of(lambda x: x.prod(), base, dev))
        print(grad_of(lambda x: x.prod(1), base, dev))
        print(grad_of(lambda x: x.prod(0, keepdim=True), base, dev))
        print(grad_of(lambda x: torch.cumprod(x, 1), base, dev))
        print(grad_of(lambda x: torch.cumprod(x, 0), base, dev))
    x = p2.detach().to(dev).requires_grad_()
    g, = torch.autograd.grad(x.prod(), x, create_graph=True)
    print(r(g), g.requires_grad)
    print(grad_of(lambda x: torch.tensor(2.0).to(dev) * x[0, 0].prod(), p, dev))

    c = torch.tensor([[1.0, 3.0, 2.0, 3.0, 5.0], [0.5, 0.25, 0.75, 0.1, 0.9]])
    print(grad_of(lambda x: torch.cummax(x, 1)[0], c, dev))
    print(grad_of(lambda x: torch.cummin(x, 1).values, c, dev))
    print(grad_of(lambda x: torch.cummax(x, 0)[0], c, dev))

# remainder with a number as self: derivatives.yaml says other's gradient is
# not implemented, and backward raises that (a RuntimeError)
other = torch.full((3,), 2.0, requires_grad=True)
try:
    torch.remainder(5.0, other).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
