# The op mix's ops that now run as one launch (clamp with two number
# bounds, Tensor.norm()'s 2-norm, std) and beside them the forms that still compose: values,
# signs of zero, NaN, dtypes and gradients against Debian's python3-torch
# (PyTorch 1.13) on CPU.
import torch

from op_results import DEVICES, t

nan, inf = float("nan"), float("inf")
for dev in DEVICES:
    x = torch.tensor([nan, 1.0, -1.0, 0.5, -0.5, 0.25, -0.0, 0.0, inf, -inf], device=dev)
    a = torch.arange(12.0, device=dev).reshape(3, 4) / 8 - 0.6
    i = torch.arange(12, device=dev).reshape(3, 4)

    t("clamp", lambda: x.clamp(-0.5, 0.5))
    t("clamp ties keep -0.0", lambda: x.clamp(0, 1))
    t("clamp max tie", lambda: x.clamp(-1.0, -0.0))
    t("clamp min > max", lambda: x.clamp(1, -1))
    t("clamp nan min", lambda: x.clamp(nan, 2.0))
    t("clamp nan max", lambda: x.clamp(-0.3, nan))
    t("clamp float64", lambda: x.double().clamp(-0.25, 0.75))
    t("clamp strided", lambda: a.t().clamp(-0.3, 0.2))
    t("torch.clamp", lambda: torch.clamp(a, min=-0.1, max=0.1))
    t("clip", lambda: a.clip(-0.2, 0.3))
    t("clamp min only", lambda: x.clamp(-0.5))
    t("clamp max only", lambda: x.clamp(max=0.5))
    t("clamp int", lambda: i.clamp(2, 6))
    t("clamp int float bound", lambda: i.clamp(2.5, 6))
    t("clamp tensor bounds", lambda: a.clamp(torch.zeros(4, device=dev), torch.ones(3, 1, device=dev) * 0.2))
    t("clamp out=", lambda: torch.clamp(a, -0.1, 0.1, out=torch.empty(3, 4, device=dev)))
    t("clamp_", lambda: a.clone().clamp_(-0.1, 0.1))
    t("clamp none", lambda: a.clamp())

    def clamp_grad():
        y = x.clone().requires_grad_()
        z = y.clamp(-0.5, 0.5)
        print("clamp grad_fn", z.grad_fn.name())
        z.backward(torch.arange(10.0, device=dev))
        return y.grad
    t("clamp grad", clamp_grad)

    t("norm", lambda: a.norm().reshape(1))
    t("norm dim", lambda: a.norm(dim=1))
    t("norm keepdim fro", lambda: a.norm(p="fro", dim=0, keepdim=True))
    t("norm strided", lambda: a.t().norm(dim=1))
    t("norm p=1", lambda: a.norm(p=1).reshape(1))
    t("std", lambda: a.std(1))
    t("std all", lambda: a.std().reshape(1))
    t("std correction 0", lambda: a.std(0, unbiased=False))
    t("std int", lambda: i.std())

    def reduce_grad(name, f):
        def run():
            y = a.clone().requires_grad_()
            z = f(y)
            print(name, "grad_fn", z.grad_fn.name())
            z.sum().backward()
            return y.grad
        t(name + " grad", run)
    reduce_grad("norm", lambda y: y.norm(dim=1))
    reduce_grad("std", lambda y: y.std(1))

    def zero_grad(name, f):
        def run():
            y = torch.zeros(2, 3, device=dev, requires_grad=True)
            f(y).backward()
            return y.grad
        t(name + " of zeros grad", run)
    zero_grad("norm", lambda y: y.norm())
    zero_grad("std", lambda y: y.std())
