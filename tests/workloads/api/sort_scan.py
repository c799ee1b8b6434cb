# Sorting along a dim (aten::sort, aten::topk, aten::kthvalue; argsort and
# msort) and scans (aten::cumsum, aten::cumprod, in place and out=):
# values, indices (stable ties), NaN ordering, dtypes, empty and 0-dim
# inputs and error texts. The expected output was generated with Debian's
# python3-torch (PyTorch 1.13, CPU) running this same script: there both
# passes run on the CPU; under Tensorscope the second runs on CUDA.
import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"
nan = float("nan")


def t(label, f):
    try:
        r = f()
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)
        return
    print(label, "->", show(r))


def show(r):
    if isinstance(r, torch.Tensor):
        return "%s %s %s" % (r.dtype, list(r.shape), r.cpu().tolist())
    if isinstance(r, tuple):
        return type(r).__name__ + "(" + "; ".join(show(x) for x in r) + ")"
    return repr(r)


for dev in ("cpu", DEV):
    x = torch.tensor([[3.0, 1.0, 2.0, 1.0], [0.0, 5.0, -4.0, 5.0]], device=dev)
    n = torch.tensor([2.0, nan, -1.0, nan, 7.0], device=dev)
    i = torch.tensor([[9, -3, 4], [2, 2, -8]], device=dev)
    b = torch.tensor([True, False, True], device=dev)
    h = torch.tensor([1.5, -2.0, 0.25], dtype=torch.float16, device=dev)
    e = torch.ones(0, 3, device=dev)
    s = torch.tensor(2.0, device=dev)
    print("--- pass")
    t("sort", lambda: x.sort())
    t("sort desc", lambda: x.sort(descending=True))
    t("sort dim0", lambda: torch.sort(x, 0))
    t("sort stable", lambda: torch.sort(x, stable=True))
    t("sort nan", lambda: n.sort())
    t("sort nan desc", lambda: n.sort(descending=True))
    t("sort int", lambda: i.sort(1))
    t("sort bool", lambda: b.sort())
    t("sort half", lambda: h.sort())
    t("sort strided", lambda: x.t().sort(0))
    t("sort empty", lambda: e.sort(0))
    t("sort 0-dim", lambda: s.sort())
    t("sort bad dim", lambda: x.sort(2))
    t("sort fields", lambda: x.sort(dim=0, descending=True).indices)
    t("argsort", lambda: x.argsort())
    t("argsort desc", lambda: torch.argsort(i, 0, descending=True))
    t("msort", lambda: x.msort())
    t("topk", lambda: x.topk(2))
    t("topk smallest", lambda: x.topk(2, largest=False))
    t("topk dim0", lambda: torch.topk(i, 1, 0))
    t("topk nan", lambda: n.topk(3))
    t("topk 0", lambda: x.topk(0))
    t("topk 0-dim", lambda: s.topk(1))
    t("topk big", lambda: x.topk(5))
    t("topk neg", lambda: x.topk(-1))
    # the kernel named in the message is the device's (topk_cuda there)
    t("topk bool", lambda: b.cpu().topk(1))
    t("kthvalue", lambda: x.kthvalue(2))
    t("kthvalue dim0", lambda: torch.kthvalue(x, 1, 0))
    t("kthvalue keepdim", lambda: x.kthvalue(3, 1, keepdim=True))
    t("kthvalue int", lambda: i.kthvalue(2))
    t("kthvalue 0-dim", lambda: s.kthvalue(1))
    t("kthvalue big", lambda: x.kthvalue(5))
    t("kthvalue 0", lambda: x.kthvalue(0))
    t("cumsum", lambda: x.cumsum(1))
    t("cumsum dim0", lambda: torch.cumsum(x, 0))
    t("cumsum int", lambda: i.cumsum(1))
    t("cumsum int32", lambda: i.int().cumsum(0))
    t("cumsum bool", lambda: b.cumsum(0))
    t("cumsum dtype", lambda: x.cumsum(0, dtype=torch.int32))
    # CPU only: 1.13 has no CPU kernel for float16 (its CUDA one computes)
    t("cumsum half", lambda: h.cpu().cumsum(0))
    t("cumsum nan", lambda: n.cumsum(0))
    t("cumsum strided", lambda: x.t().cumsum(1))
    t("cumsum empty", lambda: e.cumsum(0))
    t("cumsum 0-dim", lambda: s.cumsum(0))
    t("cumsum out", lambda: torch.cumsum(x, 0, out=torch.empty(2, 4, dtype=torch.int64, device=dev)))
    t("cumsum_", lambda: x.clone().cumsum_(1))
    t("cumsum_ int32", lambda: torch.ones(3, dtype=torch.int32, device=dev).cumsum_(0))
    t("cumsum no dim", lambda: x.cumsum())
    t("cumsum bad dim", lambda: x.cumsum(2))
    t("cumprod", lambda: x.cumprod(1))
    t("cumprod int", lambda: torch.cumprod(i, 0))
    t("cumprod bool", lambda: b.cumprod(0))
    t("cumprod_", lambda: x.clone().cumprod_(0))
