# torch._foreach_* on CPU: each form's values (PyTorch 1.13 CPU is the oracle)
import torch

torch.manual_seed(0)
xs = [torch.randn(3), torch.randn(2, 2), torch.randn(5)]
ys = [torch.rand(3) + 0.5, torch.rand(2, 2) + 0.5, torch.rand(5) + 0.5]
# small integers: products and sums of squares exact (PyTorch's CPU addcmul
# is an fma, its norm accumulates otherwise)
ns = [torch.tensor([1., -2., 3.]), torch.tensor([[3., 4.], [0., 1.]]), torch.tensor([2., 2., 1., 0., -4.])]


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
