# nll_loss as PyTorch's one op (#15): nll_loss_forward / nll_loss2d_forward
# with NllLossBackward0 / NllLoss2DBackward0, every reduction, class
# weights, ignore_index, 1-d to 5-d inputs, float32/float64/bfloat16, the
# error texts, and a second-order gradient through cross_entropy. The
# expected output is what Debian's python3-torch 1.13 prints for this
# script (float32 sums are bit-exact: the kernel keeps PyTorch's cascade).
import torch
import torch.nn.functional as F


def r(t):
    return [round(v, 5) + 0.0 for v in t.detach().reshape(-1).double().tolist()]


def tr(what, f):
    try:
        v = f()
        print(what, r(v) if isinstance(v, torch.Tensor) else v)
    except Exception as e:
        print(what, type(e).__name__, str(e).split("\n")[0])


torch.manual_seed(0)
w = torch.tensor([0.5, 1.0, 2.0, 1.0, 0.3])
shapes = {1: (5,), 2: (6, 5), 3: (2, 5, 3), 4: (2, 5, 2, 3), 5: (2, 5, 2, 1, 2)}
for nd, shape in shapes.items():
    base = torch.randn(*shape)
    tshape = () if nd == 1 else (shape[0],) + shape[2:]
    tgt = torch.randint(0, 5, tshape)
    if nd > 1:
        tgt.view(-1)[1] = -100
    for dtype in (torch.float32, torch.float64, torch.bfloat16):
        for red in ("none", "mean", "sum"):
            for weight in (None, w):
                x = base.to(dtype).detach().clone().requires_grad_()
                wt = None if weight is None else weight.to(dtype)
                loss = F.nll_loss(x, tgt, weight=wt, reduction=red)
                loss.backward(torch.ones_like(loss) if red == "none" else None)
                print(nd, str(dtype)[6:], red, weight is not None, loss.grad_fn.name(), r(loss), r(x.grad))

# the exact float32 sum of a long batch (PyTorch's cascaded summation)
torch.manual_seed(1)
big = torch.randn(3000, 7).log_softmax(1)
bt = torch.randint(0, 7, (3000,))
print("long sum", F.nll_loss(big, bt, reduction="sum").item(), F.nll_loss(big, bt).item())
print("weighted", F.nll_loss(big, bt, weight=torch.rand(7)).item())

x = torch.randn(3, 5).log_softmax(1)
tr("target out of bounds", lambda: F.nll_loss(x, torch.tensor([0, 5, 1])))
tr("negative target", lambda: F.nll_loss(x, torch.tensor([0, -1, 1])))
tr("batch mismatch", lambda: F.nll_loss(x, torch.tensor([0, 1])))
tr("weight size", lambda: F.nll_loss(x, torch.tensor([0, 1, 1]), weight=torch.ones(3)))
tr("float target", lambda: F.nll_loss(x, torch.tensor([0, 1, 1.])))
tr("int32 target", lambda: F.nll_loss(x, torch.tensor([0, 1, 1], dtype=torch.int32)))
tr("long input", lambda: F.nll_loss(x.long(), torch.tensor([0, 1, 1])))
tr("half input on the CPU", lambda: F.nll_loss(x.half(), torch.tensor([0, 1, 1])))
tr("multi-target", lambda: F.nll_loss(x, torch.tensor([[0], [1], [1]])))
tr("1-d, 1-element target", lambda: F.nll_loss(x[0], torch.tensor([2])))
tr("1-d bad target", lambda: F.nll_loss(x[0], torch.tensor(7)))
tr("4-d bad target", lambda: F.nll_loss(torch.randn(2, 3, 4, 5), torch.zeros(2, 4, 5).long() + 3))
tr("4-d size mismatch", lambda: F.nll_loss(torch.randn(2, 3, 4, 5), torch.zeros(2, 4, 4).long()))
tr("4-d target rank", lambda: F.nll_loss(torch.randn(2, 3, 4, 5), torch.zeros(2, 4, 5, 1).long()))
tr("4-d weight", lambda: F.nll_loss(torch.randn(2, 3, 4, 5), torch.zeros(2, 4, 5).long(), weight=torch.ones(2)))
tr("3-d target size", lambda: F.nll_loss(torch.randn(2, 3, 4), torch.zeros(2, 5).long()))
tr("bad reduction", lambda: F.nll_loss(x, torch.tensor([0, 1, 1]), reduction="bad"))
tr("all ignored, mean", lambda: F.nll_loss(x, torch.tensor([-100, -100, -100])))
tr("all ignored, sum", lambda: F.nll_loss(x, torch.tensor([-100, -100, -100]), reduction="sum"))
tr("empty batch", lambda: F.nll_loss(torch.randn(0, 5), torch.zeros(0).long()))
tr("empty batch, sum", lambda: F.nll_loss(torch.randn(0, 5), torch.zeros(0).long(), reduction="sum"))

z = torch.randn(2, 3, 4, requires_grad=True)
loss = F.nll_loss(z, torch.zeros(2, 4).long())
print(loss.grad_fn.name(), [f.name() for f, _ in loss.grad_fn.next_functions])
loss = F.nll_loss(z, torch.zeros(2, 4).long(), reduction="none")
print(loss.grad_fn.name(), [f.name() for f, _ in loss.grad_fn.next_functions])
loss = F.cross_entropy(torch.randn(3, 5, requires_grad=True), torch.tensor([0, 1, 2]))
print(loss.grad_fn.name(), [f.name() for f, _ in loss.grad_fn.next_functions])

# second order: d/dx of sum(d loss / d x * v), through NllLossBackward0's
# own backward (linear in its incoming gradient) and log_softmax's
torch.manual_seed(2)
a = torch.randn(4, 6, requires_grad=True)
v = torch.randn(4, 6)
t = torch.tensor([1, 0, 5, -100])
for red in ("mean", "sum", "none"):
    loss = F.cross_entropy(a, t, weight=torch.rand(6), reduction=red)
    (g,) = torch.autograd.grad(loss.sum(), a, create_graph=True)
    (gg,) = torch.autograd.grad((g * v).sum(), a)
    print("second order", red, r(gg))
    s = F.nll_loss(a.log_softmax(1), t, reduction=red)
    (g,) = torch.autograd.grad(s.sum(), a, create_graph=True)
    (go,) = torch.autograd.grad(g.pow(2).sum(), a)
    print("through the backward", red, r(go))
