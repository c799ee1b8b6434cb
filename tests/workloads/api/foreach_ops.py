# torch._foreach_* on CPU: each form's values (PyTorch 1.13 CPU is the oracle);
# sim/foreach_ops_cuda runs it on CUDA tensors (DEVICE) for the same output
import torch

DEVICE = globals().get("DEVICE", "cpu")
torch.manual_seed(0)
xs = [torch.randn(3).to(DEVICE), torch.randn(2, 2).to(DEVICE), torch.randn(5).to(DEVICE)]
ys = [(torch.rand(3) + 0.5).to(DEVICE), (torch.rand(2, 2) + 0.5).to(DEVICE), (torch.rand(5) + 0.5).to(DEVICE)]
# small integers: products and sums of squares exact (PyTorch's CPU addcmul
# is an fma, its norm accumulates otherwise)
ns = [torch.tensor([1., -2., 3.], device=DEVICE), torch.tensor([[3., 4.], [0., 1.]], device=DEVICE),
      torch.tensor([2., 2., 1., 0., -4.], device=DEVICE)]


def show(name, ts):
    print(name, [t.tolist() for t in ts])


def fresh():
    return [x.clone() for x in xs]


show("add_scalar", torch._foreach_add(xs, 0.3))
show("add_list", torch._foreach_add(xs, ys, alpha=0.5))
show("add_scalarlist", torch._foreach_add(xs, [0.1, 0.2, 0.3]))
show("sub_list", torch._foreach_sub(xs, ys))
show("mul_scalar", torch._foreach_mul(xs, 1.7))
show("mul_list", torch._foreach_mul(xs, ys))
show("div_list", torch._foreach_div(xs, ys))
show("div_scalar", torch._foreach_div(xs, 3.0))
show("addcmul", torch._foreach_addcmul(xs, ns, ns, 0.5))
show("addcdiv", torch._foreach_addcdiv(xs, xs, ys, -0.01))
show("sqrt", torch._foreach_sqrt(ys))
show("neg", torch._foreach_neg(xs))
show("norm", torch._foreach_norm(ns))
for name, args in [("add_", (ys,)), ("sub_", (0.25,)), ("mul_", (ys,)), ("div_", ([2.0, 4.0, 8.0],)),
                   ("addcmul_", (ns, ns, 2.0)), ("addcdiv_", (ys, ys, 0.5)), ("neg_", ()), ("zero_", ())]:
    t = fresh()
    r = getattr(torch, "_foreach_" + name)(t, *args)
    print(name, r, [v.tolist() for v in t])
t = [y.clone() for y in ys]
torch._foreach_sqrt_(t)
show("sqrt_", t)
# PyTorch 2.x's in-place lerp_ and maximum_ (1.13 lacks them: its single-tensor
# ops give the oracle's values)
for w in (0.25, 0.75):
    t = fresh()
    if hasattr(torch, "_foreach_lerp_") and hasattr(torch, "_foreach_maximum_"):
        torch._foreach_lerp_(t, ys, w)
    else:
        t = [torch.lerp(a, b, w) for a, b in zip(t, ys)]
    show("lerp_ %g" % w, t)
t = fresh()
if hasattr(torch, "_foreach_maximum_"):
    torch._foreach_maximum_(t, ys)
else:
    t = [torch.maximum(a, b) for a, b in zip(t, ys)]
show("maximum_", t)
show("maximum", torch._foreach_maximum(xs, ys))
