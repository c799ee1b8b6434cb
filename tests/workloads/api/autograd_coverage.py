# Every differentiable op records an autograd node (#15): its output
# requires grad when an input does, even where no formula exists yet (a
# backward through such a node fails loudly, never drops gradients
# silently). The expected output is what Debian's python3-torch 1.13
# prints for this script (`python3 autograd_coverage.py`).
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"


def leaf(*shape):
    return torch.rand(*shape, device=dev).requires_grad_()


x = leaf(3, 4)
idx = torch.tensor([0, 2], device=dev)
mask = torch.tensor([[True, False, True, False]] * 3, device=dev)

ops = [
    ("softmax", lambda: torch.softmax(x, 1)),
    ("log_softmax", lambda: torch.log_softmax(x, 1)),
    ("tril", lambda: torch.tril(x)),
    ("triu", lambda: torch.triu(x)),
    ("flip", lambda: torch.flip(x, [0])),
    ("sort", lambda: torch.sort(x, 1)[0]),
    ("topk", lambda: torch.topk(x, 2)[0]),
    ("kthvalue", lambda: torch.kthvalue(x, 2)[0]),
    ("cumsum", lambda: torch.cumsum(x, 1)),
    ("cumprod", lambda: torch.cumprod(x, 1)),
    ("cummax", lambda: torch.cummax(x, 1)[0]),
    ("cummin", lambda: torch.cummin(x, 1)[0]),
    ("index", lambda: x[idx]),
    ("masked_select", lambda: torch.masked_select(x, mask)),
    ("take", lambda: torch.take(x, idx)),
    ("index_select", lambda: torch.index_select(x, 0, idx)),
    ("gather", lambda: torch.gather(x, 1, torch.zeros(3, 1, dtype=torch.long, device=dev))),
    ("prod", lambda: torch.prod(x)),
    ("amax", lambda: torch.amax(x, 1)),
    ("amin", lambda: torch.amin(x, 1)),
    ("tan", lambda: torch.tan(x)),
    ("erf", lambda: torch.erf(x)),
    ("floor", lambda: torch.floor(x)),
    ("fmod", lambda: torch.fmod(x, 0.3)),
    ("remainder", lambda: torch.remainder(x, 0.3)),
    ("clamp_min", lambda: torch.clamp_min(x, 0.5)),
    ("bmm", lambda: torch.bmm(leaf(2, 3, 4), leaf(2, 4, 2))),
]


# in place on a non-leaf: its history continues through the op
def inplace(fn):
    def run():
        y = x * 1
        fn(y)
        return y
    return run


def src_only(fn):
    def run():
        y = torch.zeros(3, 4, device=dev)
        fn(y)
        return y
    return run


ops += [
    ("index_put_", inplace(lambda y: y.index_put_((idx,), torch.ones(2, 4, device=dev)))),
    ("masked_fill_", inplace(lambda y: y.masked_fill_(mask, 0.0))),
    ("masked_scatter_", inplace(lambda y: y.masked_scatter_(mask, torch.ones(3, 4, device=dev)))),
    ("scatter_", inplace(lambda y: y.scatter_(0, torch.zeros(1, 4, dtype=torch.long, device=dev),
                                              torch.ones(1, 4, device=dev)))),
    ("scatter_add_", src_only(lambda y: y.scatter_add_(0, torch.zeros(1, 4, dtype=torch.long, device=dev),
                                                       leaf(1, 4)))),
    ("index_add_", src_only(lambda y: y.index_add_(0, idx, leaf(2, 4)))),
    ("index_copy_", src_only(lambda y: y.index_copy_(0, idx, leaf(2, 4)))),
]

for name, fn in ops:
    try:
        print(name, fn().requires_grad)
    except Exception as e:  # an op the package lacks shows as such
        print(name, type(e).__name__, e)
