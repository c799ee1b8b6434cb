# The tensor API of issue #14, errors: PyTorch's messages for bad shapes,
# dtypes and arguments, and what is not modeled yet says so by name
# (printed by the oracle as the same line: see note()).
import torch

from op_results import DEVICES


def t(label, f):
    try:
        r = f()
        print(label, "->", r.dtype if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


def note(label, f):
    """What Tensorscope refuses by name and PyTorch computes."""
    try:
        f()
        print(label, "-> not modeled")
    except NotImplementedError:
        print(label, "-> not modeled")


for dev in DEVICES:
    x = torch.ones(3, 4, device=dev)
    v = torch.ones(4, device=dev)
    i = torch.tensor([1, 2, 3], device=dev)
    t("where bad cond", lambda: torch.where(x, x, x))
    t("where shapes", lambda: torch.where(x > 0, x, torch.ones(2, device=dev)))
    t("where int float", lambda: torch.where(i > 1, i, 0.5))
    t("where int int", lambda: torch.where(i > 1, i, 7))
    t("where bool", lambda: torch.where(i > 1, True, False))
    t("addmm shapes", lambda: torch.addmm(x, x, x))
    t("mv shapes", lambda: torch.mv(x, torch.ones(3, device=dev)))
    t("mv dims", lambda: torch.mv(v, v))
    t("dot dims", lambda: torch.dot(x, v))
    t("dot sizes", lambda: torch.dot(v, torch.ones(3, device=dev)))
    t("dot dtypes", lambda: torch.dot(v, v.double()))
    t("outer dims", lambda: torch.outer(x, v))
    t("bmm dims", lambda: torch.baddbmm(x, x, x))
    t("einsum operands", lambda: torch.einsum("ij,jk->ik", x))
    t("einsum ellipsis", lambda: torch.einsum("...ij,...jk->...ik", torch.ones(2, 1, 3, 4, device=dev),
                                              torch.ones(5, 4, 2, device=dev)).shape)
    t("einsum implicit", lambda: torch.einsum("ba,ac", x.t(), torch.ones(3, 2, device=dev)).shape)
    t("einsum bilinear", lambda: torch.einsum("bn,anm,bm->ba", torch.ones(2, 3, device=dev),
                                              torch.ones(5, 3, 4, device=dev), torch.ones(2, 4, device=dev)))
    t("var int", lambda: i.var())
    t("var one", lambda: torch.ones(1, device=dev).var())
    t("norm int", lambda: torch.linalg.vector_norm(i))
    t("norm inf empty", lambda: torch.linalg.vector_norm(torch.ones(0, device=dev), float("inf")))
    t("matrix_norm 1d", lambda: torch.linalg.matrix_norm(v))
    t("matrix_norm ord", lambda: torch.linalg.matrix_norm(x, 3))
    t("matrix_norm nuc", lambda: torch.linalg.matrix_norm(x, "nuc"))
    t("matrix_norm 2", lambda: torch.linalg.matrix_norm(x, 2))
    t("norm nuc", lambda: torch.norm(x, "nuc"))
    note("fft", lambda: torch.fft.fft(v))
    t("diagonal same", lambda: x.diagonal(0, 1, 1))
    t("diag 3d", lambda: torch.diag(torch.ones(2, 2, 2, device=dev)))
    t("trace 1d", lambda: torch.trace(v))
    t("eye neg", lambda: torch.eye(-1))
    t("cdist 1d", lambda: torch.cdist(v, v))
    t("cdist cols", lambda: torch.cdist(x, torch.ones(2, 3, device=dev)))
    t("searchsorted side", lambda: torch.searchsorted(v, v, side="middle"))
    t("searchsorted opposite", lambda: torch.searchsorted(v, v, side="left", right=True))
    t("bincount float", lambda: torch.bincount(v))
    t("bincount neg", lambda: torch.bincount(torch.tensor([-1, 2], device=dev)))
    t("bincount 2d", lambda: torch.bincount(torch.ones(2, 2, dtype=torch.int64, device=dev)))
    t("bincount weights", lambda: torch.bincount(i, torch.ones(2, device=dev)))
    t("histc int", lambda: torch.histc(i))
    t("histc range", lambda: torch.histc(v, 4, 3, 1))
    t("scatter_reduce bad", lambda: x.scatter_reduce(0, torch.zeros(1, 4, dtype=torch.int64, device=dev), x, "max"))
    t("index_fill 1d value", lambda: x.index_fill(0, torch.tensor([0], device=dev), torch.ones(2, device=dev)))
    t("randint empty range", lambda: torch.randint(3, 3, (2,)))
    t("addcdiv int", lambda: torch.addcdiv(i, i, i))
    t("multinomial dims", lambda: torch.multinomial(torch.ones(2, 2, 2), 1))
    t("multinomial int", lambda: torch.multinomial(torch.ones(2, dtype=torch.int64), 1))
    t("multinomial neg", lambda: torch.multinomial(torch.tensor([0.5, -1.0]), 2, True))
