# out= (#14), as PyTorch has it: values, dtype casts and their errors,
# resizing with its warning, aliasing, tuple outs, the same object returned.
# part() runs on CPU tensors, so Debian's python3-torch 1.13 prints the
# expected output for it; on a CUDA device it must print the same lines
# again (copied from the CPU ones, with the kernel name "std_cuda" for
# "std_cpu"), then the device check's messages.
import warnings

import torch
from checks import check

warnings.simplefilter("always")


def show(t):
    vals = t.flatten().tolist()
    if t.dtype.is_floating_point:
        vals = [round(v, 4) for v in vals]
    return "%s %s %s" % (str(t.dtype)[6:], list(t.shape), vals)


def warned(fn):
    """fn(), printing the warnings it raised"""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        r = fn()
    for w in ws:
        print("  warning:", w.category.__name__, w.message)
    return r


def part(dev):
    x = torch.tensor([[1.5, -2.0, 3.0], [4.0, 5.0, -6.0]], device=dev)
    y = torch.tensor([0.5, 2.0, -1.0], device=dev)
    xi = torch.tensor([[1, 2, 3], [4, 5, 6]], device=dev)

    def empty(*shape, dtype=torch.float32):
        return torch.empty(*shape, dtype=dtype, device=dev)

    # elementwise: values, broadcasting, the same object back
    z = empty(2, 3)
    r = torch.add(x, y, out=z)
    print("add", show(z), r is z)
    print("add alpha", show(torch.add(x, y, alpha=2, out=empty(2, 3))))
    print("sub alpha", show(torch.sub(x, y, alpha=0.5, out=empty(2, 3))))
    print("mul", show(torch.mul(x, 2, out=empty(2, 3))), "div", show(torch.div(x, y, out=empty(2, 3))))
    print("pow", show(torch.pow(x, 2, out=empty(2, 3))), show(torch.pow(2, y, out=empty(3))))
    print("maximum", show(torch.maximum(x, y, out=empty(2, 3))))
    print("eq", show(torch.eq(x, 1.5, out=empty(2, 3, dtype=torch.bool))))
    print("unary", show(torch.abs(x, out=empty(2, 3))), show(torch.neg(xi, out=empty(2, 3, dtype=torch.long))))
    print("exp", show(torch.exp(y, out=empty(3))), "sin", show(torch.sin(y, out=empty(3))))
    print("where", show(torch.where(x > 0, x, y, out=empty(2, 3))))
    print("clamp", show(torch.clamp(x, -1, 2, out=empty(2, 3))), show(torch.clamp(x, min=0, out=empty(2, 3))))

    # dtype: the result cast into out's where the family allows it
    print("add->double", show(torch.add(x, y, out=empty(2, 3, dtype=torch.float64))))
    print("int->float", show(torch.add(xi, 1, out=empty(2, 3))))
    print("eq->float", show(torch.eq(x, x, out=empty(2, 3))))
    print("sin->double", show(torch.sin(x, out=empty(2, 3, dtype=torch.float64))))
    check(lambda: torch.add(x, y, out=empty(2, 3, dtype=torch.long)))
    check(lambda: torch.add(xi, xi, out=empty(2, 3, dtype=torch.bool)))
    check(lambda: torch.div(xi, xi, out=empty(2, 3, dtype=torch.long)))
    check(lambda: torch.exp(xi, out=empty(2, 3, dtype=torch.long)))
    check(lambda: torch.abs(x, out=empty(2, 3, dtype=torch.float64)))
    check(lambda: torch.clamp(x, 0, 1, out=empty(2, 3, dtype=torch.float64)))
    check(lambda: torch.pow(x, 2, out=empty(2, 3, dtype=torch.long)))

    # reductions: out's dtype is the one they reduce in
    print("sum", show(torch.sum(x, 1, out=empty(2))), show(torch.sum(x, 1, out=empty(2, dtype=torch.long))))
    print("sum int->float", show(torch.sum(xi, 0, keepdim=True, out=empty(1, 3))))
    print("mean", show(torch.mean(x, 1, out=empty(2))), show(torch.mean(x, 0, out=empty(3, dtype=torch.float64))))
    print("prod", show(torch.prod(x, 1, out=empty(2))), "amax", show(torch.amax(x, 1, out=empty(2))))
    print("std", show(torch.std(x, 1, out=empty(2))), "var", show(torch.var(x, 0, out=empty(3))))
    print("argmax", show(torch.argmax(x, 1, out=empty(2, dtype=torch.long))))
    print("cumsum", show(torch.cumsum(x, 1, out=empty(2, 3))), show(torch.cumsum(x, 1, out=empty(0, dtype=torch.long))))
    print("cumprod", show(torch.cumprod(xi, 0, out=empty(2, 3, dtype=torch.float64))))
    check(lambda: torch.sum(x, 1, dtype=torch.float64, out=empty(2)))
    check(lambda: torch.mean(x, 1, out=empty(2, dtype=torch.long)))
    check(lambda: torch.mean(xi, 1, out=empty(2)))
    check(lambda: torch.amax(x, 1, out=empty(2, dtype=torch.float64)))
    check(lambda: torch.argmax(x, 1, out=empty(2)))
    check(lambda: torch.cumsum(x, 1, dtype=torch.float64, out=empty(2, 3)))

    # matmul family
    a = x.t().contiguous()
    print("mm", show(torch.mm(x, a, out=empty(2, 2))), "matmul", show(torch.matmul(x, y, out=empty(2))))
    print("bmm", show(torch.bmm(x[None], a[None], out=empty(1, 2, 2))))
    print("addmm", show(torch.addmm(y[:2], x, a, beta=2, alpha=0.5, out=empty(2, 2))))
    print("mv", show(torch.mv(x, y, out=empty(2))), "dot", show(torch.dot(y, y, out=empty(()))))
    check(lambda: torch.mm(x, a, out=empty(2, 2, dtype=torch.float64)))
    check(lambda: torch.bmm(x[None], a[None], out=empty(1, 2, 2, dtype=torch.long)))

    # each family's own dtype check
    print("std->double", show(torch.std(x, 1, out=empty(2, dtype=torch.float64))))
    print("norm->long", show(torch.norm(x, dim=1, out=empty(2, dtype=torch.long))))
    print("outer->double", show(torch.outer(y, y, out=empty(0, dtype=torch.float64))))
    i0 = torch.tensor([0, 5], device=dev)
    check(lambda: torch.take(x, i0, out=empty(2, dtype=torch.float64)))
    check(lambda: torch.dot(y, y, out=empty((), dtype=torch.float64)))
    check(lambda: torch.nonzero(x, out=empty(0, dtype=torch.int32)))
    check(lambda: torch.diag(x, out=empty(0, dtype=torch.float64)))
    check(lambda: torch.masked_select(x, x > 0, out=empty(0, dtype=torch.float64)))
    check(lambda: torch.cummax(x, 0, out=(empty(0, dtype=torch.float64), empty(0, dtype=torch.long))))
    check(lambda: torch.cummin(x, 0, out=(empty(0), empty(0, dtype=torch.int32))))
    check(lambda: torch.kthvalue(x, 1, 0, out=(empty(0, dtype=torch.float64), empty(0, dtype=torch.long))))
    check(lambda: torch.kthvalue(x, 1, 0, out=(empty(0), empty(0, dtype=torch.int32))))
    check(lambda: torch.logsumexp(x, 1, out=empty(0, dtype=torch.long)))
    s = torch.tensor([0.0, 2.0, 4.0], device=dev)
    print("searchsorted", show(torch.searchsorted(s, x, out=empty(0, dtype=torch.long))),
          show(torch.bucketize(x, s, out_int32=True, out=empty(0, dtype=torch.int32))))
    print("nan_to_num", show(torch.nan_to_num(x / 0, posinf=9.0, neginf=-9.0, out=empty(2, 3))))
    print("scatter_add", show(torch.scatter_add(x, 1, torch.tensor([[0], [1]], device=dev), x, out=empty(0))))
    print("index_add", show(torch.index_add(x, 0, torch.tensor([1], device=dev), x[:1], out=empty(0))))
    print("msort", show(torch.msort(x, out=empty(0))), "histc", show(torch.histc(s, 3, out=empty(0))))
    check(lambda: torch.searchsorted(s, x, out=empty(0, dtype=torch.int32)))
    check(lambda: torch.nan_to_num(x, out=empty(0, dtype=torch.float64)))
    check(lambda: torch.index_copy(x, 0, torch.tensor([1], device=dev), x[:1], out=empty(0, dtype=torch.long)))
    check(lambda: torch.histc(s, 3, out=empty(0, dtype=torch.float64)))
    check(lambda: torch.var(x, 1, out=empty(0, dtype=torch.long)))

    # joins, indexing, triangles
    print("cat", show(torch.cat([x, x], out=empty(4, 3))), show(torch.cat([xi, xi], 1, out=empty(2, 6))))
    print("stack", show(torch.stack([y, y], out=empty(2, 3, dtype=torch.float64))))
    print("index_select", show(torch.index_select(x, 1, torch.tensor([2, 0], device=dev), out=empty(2, 2))))
    print("gather", show(torch.gather(x, 1, torch.tensor([[2], [0]], device=dev), out=empty(2, 1))))
    print("tril", show(torch.tril(x, out=empty(2, 3))), show(torch.triu(x, 1, out=empty(0))))
    check(lambda: torch.cat([x, x], out=empty(4, 3, dtype=torch.long)))
    check(lambda: torch.index_select(x, 0, torch.tensor([1], device=dev), out=empty(1, 3, dtype=torch.float64)))
    check(lambda: torch.gather(x, 1, torch.tensor([[2], [0]], device=dev), out=empty(2, 1, dtype=torch.float64)))

    # factories: out's dtype and device, resized without a warning
    print("zeros", show(torch.zeros(2, 3, out=empty(2, dtype=torch.long))))
    print("ones", show(torch.ones(2, out=empty(5, dtype=torch.float64))), "full", show(torch.full((2,), 1.5, out=empty(2))))
    print("empty", list(torch.empty(3, 2, out=empty(0, dtype=torch.int32)).shape))
    print("arange", show(torch.arange(4, out=empty(4, dtype=torch.long))), show(torch.arange(1, 2, 0.25, out=empty(0))))
    print("linspace", show(torch.linspace(0, 1, 5, out=empty(2))), "eye", show(torch.eye(2, 3, out=empty(0))))
    r = torch.randn(3, 4, out=empty(0, dtype=torch.float64))
    print("randn", r.dtype, list(r.shape), "rand", list(torch.rand(5, out=empty(0)).shape))
    check(lambda: torch.zeros(2, dtype=torch.float32, out=empty(2, dtype=torch.long)))
    check(lambda: torch.full((2,), 1, dtype=torch.float64, out=empty(2)))
    check(lambda: torch.arange(3, dtype=torch.float64, out=empty(3)))

    # resizing: a warning when out had elements
    z = empty(6)
    print("resized", show(warned(lambda: torch.add(x, y, out=z))), show(z))
    print("from empty", show(warned(lambda: torch.exp(y, out=empty(0)))))
    print("mm resized", show(warned(lambda: torch.mm(x, a, out=empty(3, 3)))))
    print("sum resized", show(warned(lambda: torch.sum(x, 0, out=empty(2, 2)))))
    print("cat resized", show(warned(lambda: torch.cat([y, y], out=empty(2)))))
    print("arange resized", show(warned(lambda: torch.arange(5, out=empty(2)))))

    # aliasing: out is an input
    w = x.clone()
    print("alias add", show(torch.add(w, y, out=w)), show(w))
    w = x.clone()
    print("alias mul", show(torch.mul(w, w, out=w)), "alias exp", show(torch.exp(y[:2], out=w[0, :2])), show(w))
    w = x.clone()
    print("alias cumsum", show(torch.cumsum(w, 1, out=w)), "alias where", show(torch.where(w > 0, w, y, out=w)))

    # several results: a tuple of outs, given back as the op's return type
    v, i = empty(0), empty(0, dtype=torch.long)
    r = torch.sort(x, 1, descending=True, out=(v, i))
    print("sort", type(r).__name__, r[0] is v, r.indices is i, show(v), show(i))
    r = torch.max(x, 1, out=(empty(0), empty(0, dtype=torch.long)))
    print("max", type(r).__name__, show(r.values), show(r.indices))
    r = torch.min(x, 0, keepdim=True, out=[empty(0), empty(0, dtype=torch.long)])
    print("min", type(r).__name__, show(r.values), show(r.indices))
    r = torch.topk(x, 2, out=(empty(0), empty(0, dtype=torch.long)))
    print("topk", show(r[0]), show(r[1]))
    r = torch.kthvalue(x, 2, 1, out=(empty(0), empty(0, dtype=torch.long)))
    print("kthvalue", show(r[0]), show(r[1]))
    r = torch.cummax(x, 1, out=(empty(0), empty(0, dtype=torch.long)))
    print("cummax", show(r[0]), show(r[1]))
    r = torch.aminmax(x, dim=1, out=(empty(0), empty(0)))
    print("aminmax", type(r).__name__, show(r.min), show(r.max))
    print("max other", show(torch.max(x, y, out=empty(2, 3))))
    check(lambda: torch.sort(x, out=(empty(0, dtype=torch.float64), empty(0, dtype=torch.long))))
    check(lambda: torch.max(x, 1, out=(empty(0), empty(0, dtype=torch.int32))))
    check(lambda: torch.max(x, 1, out=(empty(0),)))

    # what out= refuses
    check(lambda: torch.add(x, y, out=(empty(0),)))
    w = x.clone().requires_grad_()
    check(lambda: torch.add(w, 1, out=empty(2, 3)))
    check(lambda: torch.exp(w, out=empty(0)))
    check(lambda: torch.mm(w, a, out=empty(2, 2)))
    with torch.no_grad():
        print("no_grad", show(torch.add(w, 1, out=empty(2, 3))))
    check(lambda: torch.isnan(x, out=empty(2, 3, dtype=torch.bool)))


part("cpu")
if torch.cuda.is_available():
    print("== cuda")
    part("cuda")
    xc = torch.ones(2, 3, device="cuda")
    check(lambda: torch.add(xc, xc, out=torch.empty(2, 3)))
    check(lambda: torch.add(torch.ones(3), 1, out=torch.empty(3, device="cuda")))
    check(lambda: torch.sum(xc, 1, out=torch.empty(2)))
