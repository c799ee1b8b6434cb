# Ops that move elements by position: tril/triu (aten::tril, aten::triu,
# in place and out=), flip/fliplr/flipud (aten::flip), roll, repeat, tile,
# repeat_interleave: values for several dtypes, strided and empty inputs,
# and error texts. The expected output was generated with Debian's
# python3-torch (PyTorch 1.13, CPU) running this same script: there both
# passes run on the CPU; under Tensorscope the second runs on CUDA.
import torch

from opcheck import DEV, t


for dev in ("cpu", DEV):
    x = torch.arange(12.0, device=dev).reshape(3, 4)
    b = torch.ones(3, 3, dtype=torch.bool, device=dev)
    i = torch.arange(24, device=dev).reshape(2, 3, 4)
    s = torch.tensor(2.0, device=dev)
    print("--- pass")
    t("tril", lambda: x.tril())
    t("tril 1", lambda: x.tril(1))
    t("tril -1", lambda: torch.tril(x, -1))
    t("triu", lambda: x.triu())
    t("triu 1 bool", lambda: torch.triu(b, diagonal=1))
    t("triu batched int", lambda: i.triu(-1))
    t("tril half", lambda: x.half().tril(2))
    t("tril strided", lambda: x.t().tril())
    t("tril big diag", lambda: x.tril(10))
    t("triu big diag", lambda: x.triu(10))
    t("tril empty", lambda: torch.ones(0, 3, device=dev).tril())

    def inplace():
        y = x.clone()
        r = y.triu_(1)
        return r is y, y

    t("triu_", lambda: inplace()[1])
    t("triu_ returns self", lambda: inplace()[0])
    t("tril out", lambda: torch.tril(x, out=torch.empty(3, 4, device=dev)))
    t("tril out dtype", lambda: torch.tril(x, out=torch.empty(3, 4, dtype=torch.int64, device=dev)))
    t("tril 1-d", lambda: x[0].tril())
    t("triu 0-d", lambda: s.triu())
    t("tril_ float diag", lambda: x.clone().tril_(1.5))
    t("flip 0", lambda: x.flip(0))
    t("flip both", lambda: torch.flip(x, (0, 1)))
    t("flip neg", lambda: i.flip(-1))
    t("flip list", lambda: i.flip([0, 2]))
    t("flip none", lambda: x.flip([]))
    t("flip 0-d", lambda: s.flip(0))
    t("flip strided", lambda: x.t().flip(1))
    t("flip bool", lambda: b.triu().flip(0))
    t("flip dup", lambda: x.flip(0, -2))
    t("flip bad", lambda: x.flip(2))
    t("fliplr", lambda: x.fliplr())
    t("flipud", lambda: torch.flipud(x))
    t("fliplr 1-d", lambda: x[0].fliplr())
    t("flipud 0-d", lambda: s.flipud())
    t("roll flat", lambda: x.roll(1))
    t("roll dim", lambda: x.roll(-5, 1))
    t("roll dims", lambda: torch.roll(x, (1, 2), (0, 1)))
    t("roll 0-d", lambda: s.roll(1))
    t("roll empty", lambda: torch.ones(0, 3, device=dev).roll(1, 0))
    t("roll align", lambda: x.roll((1, 2), (0,)))
    t("roll none", lambda: x.roll(()))
    t("roll bad dim", lambda: x.roll(1, 2))
    t("repeat", lambda: x.repeat(2, 1))
    t("repeat more dims", lambda: x[0].repeat(2, 1, 2))
    t("repeat int", lambda: i.repeat(1, 1, 2))
    t("repeat zero", lambda: x.repeat(0, 2))
    t("repeat strided", lambda: x.t().repeat(1, 2))
    t("repeat few", lambda: x.repeat(2))
    t("repeat negative", lambda: x.repeat(2, -1))
    t("tile", lambda: x[0].tile(2))
    t("tile pad", lambda: torch.tile(x, (2,)))
    t("tile more", lambda: x.tile(2, 1, 1))
    t("repeat_interleave", lambda: x.repeat_interleave(2))
    t("repeat_interleave dim", lambda: x.repeat_interleave(2, 0))
    t("repeat_interleave tensor", lambda: x.repeat_interleave(torch.tensor([1, 0, 2], device=dev), 0))
    t("repeat_interleave one", lambda: x.repeat_interleave(torch.tensor([2], device=dev), 1))
    t("repeat_interleave index", lambda: torch.repeat_interleave(torch.tensor([1, 0, 3], device=dev)))
    t("repeat_interleave size", lambda: x.repeat_interleave(torch.tensor([1, 2], device=dev), 0))
    t("repeat_interleave neg", lambda: x.repeat_interleave(-1))
    # the kernel named in the message is the device's (repeat_interleave_cuda there)
    t("repeat_interleave float", lambda: x.cpu().repeat_interleave(torch.tensor([1.0, 2.0, 3.0]), 0))
    t("repeat_interleave 2-d", lambda: x.repeat_interleave(torch.ones(1, 3, dtype=torch.int64, device=dev), 0))
    t("repeat_interleave bad dim", lambda: x.repeat_interleave(2, 5))
