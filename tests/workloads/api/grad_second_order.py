# Second-order gradients (#15) through convolutions, pooling, batch and
# group norm and CopySlices (in-place writes into views): for each, the
# gradient of <d(y . v)/dx, u> with respect to every input, as
# torch.autograd.grad(..., create_graph=True) then grad again gives it (a
# gradgradcheck-style comparison). Float64, identical inputs; the expected
# output is what Debian's python3-torch 1.13 prints for this script.
import torch
import torch.nn.functional as F

def r(t):
    return [round(v, 4) + 0.0 for v in t.detach().reshape(-1).double().tolist()]

def second(name, f, *shapes):
    torch.manual_seed(0)
    xs = [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in shapes]
    try:
        y = f(*xs)
        v = torch.randn(y.shape, dtype=torch.float64)
        gs = torch.autograd.grad((y * v).sum(), xs, create_graph=True)
        u = [torch.randn(g.shape, dtype=torch.float64) for g in gs]
        s = sum((g * w).sum() for g, w in zip(gs, u))
        ggs = torch.autograd.grad(s, xs, allow_unused=True)
        print(name, [r(g) if g is not None else None for g in ggs])
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])

second("conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1), (2, 3, 5, 5), (4, 3, 3, 3), (4,))
second("conv2d stride", lambda x, w: F.conv2d(x, w, stride=2, dilation=1), (1, 2, 6, 6), (3, 2, 2, 2))
second("conv1d groups", lambda x, w: F.conv1d(x, w, groups=2, padding=1), (2, 4, 7), (4, 2, 3))
second("conv_transpose2d", lambda x, w: F.conv_transpose2d(x, w, stride=2), (1, 2, 3, 3), (2, 3, 2, 2))
second("max_pool2d", lambda x: F.max_pool2d(x, 2), (1, 2, 4, 4))
second("avg_pool2d", lambda x: F.avg_pool2d(x, 2, padding=1), (1, 2, 4, 4))
second("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 3), (1, 2, 5, 5))
second("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 2), (1, 2, 5, 5))
second("batch_norm", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (4, 3, 2, 2), (3,), (3,))
second("layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b), (3, 4), (4,), (4,))
second("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), (2, 4, 3), (4,), (4,))

second("max_pool2d sq", lambda x: F.max_pool2d(x, 2).pow(2), (1, 2, 4, 4))
second("avg_pool2d sq", lambda x: F.avg_pool2d(x, 2, padding=1).pow(2), (1, 2, 4, 4))
second("adaptive_avg sq", lambda x: F.adaptive_avg_pool2d(x, 3).pow(2), (1, 2, 5, 5))
second("adaptive_max sq", lambda x: F.adaptive_max_pool2d(x, 2).pow(2), (1, 2, 5, 5))
second("batch_norm 2d", lambda x, w: F.batch_norm(x, None, None, w, None, training=True), (5, 3), (3,))
second("batch_norm eval", lambda x, w, b: F.batch_norm(x, torch.rand(3, dtype=torch.float64), torch.rand(3, dtype=torch.float64) + 0.5, w, b, training=False), (4, 3, 2), (3,), (3,))
second("batch_norm noaffine", lambda x: F.batch_norm(x, None, None, training=True).pow(2), (4, 3, 2))
second("group_norm noaffine", lambda x: F.group_norm(x, 2).pow(2), (2, 4, 3))
second("conv+bn", lambda x, w: F.batch_norm(F.conv2d(x, w), None, None, training=True).tanh(), (2, 2, 4, 4), (3, 2, 3, 3))
def copyslices2(x, w):
    y = x * 1.0
    y[1:3] = x[1:3].sin() * w
    y[:, 0].mul_(2.0)
    return y.pow(2)
second("copyslices", copyslices2, (4, 3), (3,))
def copyslices3(x, w):
    y = x.clone()
    y[0].add_(w.exp())
    y[:, 1:].mul_(3.0)
    return y * y
second("copyslices inplace", copyslices3, (3, 3), (3,))
