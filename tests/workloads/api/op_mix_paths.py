# where, masked_fill, cat, addcmul, var and std on their common paths
# (operands of one dtype and shape, straight to the kernel) and beside
# them the cases those paths hand to the general checks: broadcasting,
# promotion, numbers, 0-dim tensors, strided operands, legacy empties and
# the errors; expectations generated with Debian's python3-torch (PyTorch
# 1.13) on CPU.
import torch

from op_results import DEVICES, t

for dev in DEVICES:
    a = torch.arange(12.0, device=dev).reshape(3, 4) / 8 - 0.6
    b = torch.arange(12.0, device=dev).reshape(3, 4).flip(1) / 5
    m = a > 0
    i = torch.arange(12, device=dev).reshape(3, 4)
    t("where", lambda: torch.where(m, a, b))
    t("where broadcast", lambda: torch.where(m[:, :1], a, b[0]))
    t("where number", lambda: torch.where(m, a, 2.0))
    t("where 0-dim", lambda: torch.where(m, a, torch.tensor(-1.0)))
    t("where promote", lambda: torch.where(m, i, a))
    t("where strided", lambda: torch.where(m.t(), a.t(), b.t()))
    t("where mismatch", lambda: torch.where(m, a, torch.zeros(5, device=dev)))
    t("masked_fill", lambda: a.masked_fill(m, 9.0))
    t("masked_fill strided", lambda: a.t().masked_fill(m.t(), -9.0))
    t("masked_fill row mask", lambda: a.masked_fill(m[1], 1.5))
    t("masked_fill int", lambda: i.masked_fill(m, 7))
    t("masked_fill 0-dim value", lambda: a.masked_fill(m, torch.tensor(3.0)))
    t("masked_fill bad mask", lambda: a.masked_fill(torch.ones(5, dtype=torch.bool, device=dev), 1.0))
    t("masked_fill_", lambda: a.clone().masked_fill_(m, 0.5))
    t("cat", lambda: torch.cat([a, b]))
    t("cat dim 1", lambda: torch.cat((a, b, a), 1))
    t("cat dim -1", lambda: torch.cat([a, b], -1))
    t("cat legacy empty", lambda: torch.cat([a, torch.empty(0, device=dev), b]))
    t("cat promote", lambda: torch.cat([a, i]))
    t("cat strided", lambda: torch.cat([a.t(), b.t()]))
    t("cat sizes", lambda: torch.cat([a, b[:, :2]]))
    t("cat dim range", lambda: torch.cat([a, b], 2))
    t("addcmul", lambda: torch.addcmul(a, a, b, value=0.5))
    t("addcmul default", lambda: torch.addcmul(a, b, b))
    t("addcmul int", lambda: torch.addcmul(i, i, i, value=2))
    t("addcmul broadcast", lambda: torch.addcmul(a, a[0], b[:, :1], value=-2))
    t("addcmul 0-dim", lambda: torch.addcmul(a, a, torch.tensor(2.0), value=0.25))
    t("addcmul promote", lambda: torch.addcmul(a, a, b.double()))
    t("var", lambda: a.var(1))
    t("var all", lambda: a.var())
    t("var unbiased=False", lambda: a.var(1, unbiased=False))
    t("var correction 0 all", lambda: a.var(unbiased=False))
    t("var keepdim", lambda: b.var(0, keepdim=True))
    t("std", lambda: a.std(1))
    t("std unbiased=False", lambda: b.std(0, unbiased=False))
    t("var_mean var", lambda: torch.var_mean(a, 1)[0])
    t("var_mean mean", lambda: torch.var_mean(a, 1)[1])
    t("std_mean mean", lambda: torch.std_mean(b, 0, unbiased=False)[1])
    t("var int", lambda: i.var(1))
    t("var dims twice", lambda: a.var((1, 1)))
    t("var half", lambda: a.half().var(0).float())

    def var_grad(*args, **kwargs):
        x = a.clone().requires_grad_()
        v = x.var(*args, **kwargs)
        print("var grad_fn", v.grad_fn.name())
        (v * torch.arange(1.0, v.numel() + 1, device=dev).reshape(v.shape)).sum().backward()
        return x.grad
    t("var grad dim 1", lambda: var_grad(1))
    t("var grad all", lambda: var_grad())
    t("var grad keepdim correction 0", lambda: var_grad(0, keepdim=True, unbiased=False))
