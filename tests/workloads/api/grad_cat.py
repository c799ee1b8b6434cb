# cat, stack and bmm gradients (#15): CatBackward0 narrows the gradient
# per input (only for inputs that require grad; a legacy empty input gets
# an empty gradient), StackBackward0 selects it, BmmBackward0 is two
# batched matmuls. Run on the CPU and on DEV. The expected output is what
# Debian's python3-torch 1.13 prints for this script.
import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t):
    return [[round(v, 4) + 0.0 for v in row] for row in t.reshape(-1, t.shape[-1]).cpu().tolist()]


for dev in ("cpu", DEV):
    torch.manual_seed(0)
    a = torch.randn(2, 3).to(dev).requires_grad_()
    b = torch.randn(4, 3).to(dev).requires_grad_()
    c = torch.randn(1, 3).to(dev)
    e = torch.empty(0, device=dev, requires_grad=True)
    y = torch.cat([a, e, b, c, a], 0)
    print(y.grad_fn.name(), list(y.shape), [f[0] is not None and f[0].name() for f in y.grad_fn.next_functions])
    (y * torch.arange(27.0).reshape(9, 3).to(dev)).sum().backward()
    print(r(a.grad), r(b.grad), e.grad.shape, e.grad.device.type == dev.split(":")[0])

    # along dim 1, mixed dtypes (the result is promoted; the gradient cast back)
    d = torch.randn(2, 2, dtype=torch.float64).to(dev).requires_grad_()
    y = torch.cat((a, d), dim=-1)
    print(y.dtype, list(y.shape))
    y.pow(2).sum().backward()
    print(r(d.grad), d.grad.dtype, r(a.grad))

    # stack, any dim
    for dim in (0, 1, -1):
        a.grad = None
        s = torch.stack([a, a * 2, b[:2]], dim)
        print(s.grad_fn.name(), list(s.shape))
        (s * torch.arange(18.0).reshape(s.shape).to(dev)).sum().backward()
        print(r(a.grad))

    # bmm, and matmul of a batch with a matrix
    x = torch.randn(3, 2, 4).to(dev).requires_grad_()
    w = torch.randn(3, 4, 5).to(dev).requires_grad_()
    z = torch.bmm(x, w)
    print(z.grad_fn.name())
    (z * z).sum().backward()
    print(r(x.grad[0]), r(w.grad[1]))
    m = torch.randn(4, 2).to(dev).requires_grad_()
    (x @ m).sum().backward()
    print(r(m.grad))

    # double backward through cat
    g, = torch.autograd.grad(torch.cat([a, a]).pow(3).sum(), a, create_graph=True)
    g.sum().backward()
    print(r(a.grad))

    # errors keep PyTorch's text
    for f in (lambda: torch.cat([a, a], out=torch.empty(4, 3, device=dev)),
              lambda: torch.stack([a, a], out=torch.empty(2, 2, 3, device=dev)),
              lambda: torch.cat([a, torch.randn(2, 2, device=dev)]),
              lambda: torch.cat([a, torch.tensor(1.0, device=dev)]),
              lambda: torch.stack([a, b])):
        try:
            f()
        except RuntimeError as ex:
            print("RuntimeError:", ex)
    with torch.no_grad():
        o = torch.empty(4, 3, device=dev)
        print(torch.cat([a, a], out=o) is o, o.requires_grad)
