# The tensor API of issue #14, values: where, lerp, addcmul/addcdiv,
# logsumexp, nan_to_num, round(decimals), var/std, norms, the BLAS-like
# products, einsum, diagonals, eye/logspace, distances, searchsorted,
# bincount, histc, unique, scatter_reduce, index_fill, on CPU then CUDA
# tensors. Expected: Debian's PyTorch 1.13 (CPU) running this script.
import torch

from op_results import DEVICES


def show(name, t):
    if isinstance(t, (tuple, list)):
        for i, u in enumerate(t):
            show(name + "[%d]" % i, u)
        return
    if isinstance(t, torch.Tensor):
        v = t.tolist()
        if t.dtype.is_floating_point:
            v = [round(a, 4) + 0.0 for a in t.reshape(-1).tolist()]
        print(name, t.dtype, tuple(t.shape), v)
    else:
        print(name, t)


for DEV in DEVICES:
    torch.manual_seed(0)
    x = torch.randn(3, 4).to(DEV); y = torch.randn(3, 4).to(DEV)
    c = x > 0
    show("where", torch.where(c, x, y))
    show("where_s", torch.where(c, x, 0.5))
    show("where_s2", torch.where(c, 1.0, 0))
    show("where_i", torch.where(c, torch.tensor(1, device=DEV), 2.5))
    show("where1", torch.where(c))
    show("where_m", x.where(c, y))
    show("lerp", torch.lerp(x, y, 0.3)); show("lerp2", x.lerp(y, torch.full((4,), 0.7).to(DEV)))
    show("addcmul", torch.addcmul(x, x, y, value=0.5)); show("addcdiv", x.addcdiv(x, y.abs() + 1, value=-2))
    show("lse", torch.logsumexp(x, 1)); show("lse2", x.logsumexp((0, 1), keepdim=True))
    show("n2n", torch.nan_to_num(torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5]).to(DEV)))
    show("n2n2", torch.nan_to_num(torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5]).to(DEV), nan=1.0, posinf=2.0))
    show("round", torch.round(x * 100, decimals=-1)); show("round2", x.round(decimals=2))
    show("var", x.var()); show("var1", x.var(1)); show("std0", x.std(0, unbiased=False)); show("stdk", x.std(1, keepdim=True))
    show("var_mean", torch.var_mean(x, 1)); show("std_mean", torch.std_mean(x, 0, correction=0))
    show("norm", x.norm()); show("norm1", torch.norm(x, 1, dim=1)); show("vn", torch.linalg.vector_norm(x, float('inf')))
    show("mn", torch.linalg.matrix_norm(x)); show("mn1", torch.linalg.matrix_norm(x, 1)); show("mninf", torch.linalg.matrix_norm(x, float('inf')))
    show("lnorm", torch.linalg.norm(x)); show("lnorm3", torch.linalg.norm(x, 3, dim=1))
    m = torch.randn(4, 2).to(DEV); v = torch.randn(4).to(DEV)
    show("addmm", torch.addmm(torch.randn(2).to(DEV), x, m, beta=0.5, alpha=2)); show("mv", torch.mv(x, v)); show("addmv", torch.addmv(torch.randn(3).to(DEV), x, v))
    show("dot", torch.dot(v, v)); show("vdot", torch.vdot(v, v)); show("outer", torch.outer(v, v[:2])); show("ger", v.ger(v[:3]))
    b1 = torch.randn(2, 3, 4).to(DEV); b2 = torch.randn(2, 4, 2).to(DEV)
    show("baddbmm", torch.baddbmm(torch.randn(3, 2).to(DEV), b1, b2, beta=2)); show("addbmm", torch.addbmm(torch.randn(3, 2).to(DEV), b1, b2, alpha=0.5))
    show("ein1", torch.einsum("ij,jk->ik", x, m)); show("ein2", torch.einsum("bij,bjk->bik", b1, b2)); show("ein3", torch.einsum("ii->i", x[:, :3]))
    show("ein4", torch.einsum("ii", x[:, :3])); show("ein5", torch.einsum("...ij->...ji", b1)); show("ein6", torch.einsum("i,j->ij", v, v))
    show("ein7", torch.einsum("bij,bjk,bkl->bil", b1, b2, torch.randn(2, 2, 5).to(DEV))); show("ein8", torch.einsum("ij->", x)); show("ein9", torch.einsum("ij,ij->i", x, y))
    show("ein10", torch.einsum(x, [0, 1]) if False else torch.einsum("i j , j k", x, m))
    show("eye", torch.eye(3)); show("eye2", torch.eye(2, 4, dtype=torch.int64))
    show("logspace", torch.logspace(0, 3, 4)); show("logspace2", torch.logspace(-1, 1, 5, base=2))
    show("diag", torch.diag(v)); show("diag1", torch.diag(x, 1)); show("diag-1", torch.diag(v[:3], -1)); show("diagonal", b1.diagonal(0, 1, 2)); show("diag_embed", torch.diag_embed(x[:2, :3]))
    show("trace", x.trace()); show("trace_i", torch.arange(9).reshape(3, 3).trace())
    show("cos", torch.nn.functional.cosine_similarity(x, y)); show("normalize", torch.nn.functional.normalize(x, dim=0)); show("pd", torch.nn.functional.pairwise_distance(x, y))
    show("cos_eps", torch.nn.functional.cosine_similarity(torch.tensor([[1e-9, 0.0], [0.0, 0.0]]).to(DEV),
                                                          torch.tensor([[1.0, 0.0], [0.0, 0.0]]).to(DEV)))
    show("cdist", torch.cdist(x, y)); show("dist", torch.dist(x, y)); show("dist1", torch.dist(x, y, 1))
    s = torch.tensor([1, 3, 5, 7, 9]).to(DEV)
    show("ss", torch.searchsorted(s, torch.tensor([[3, 6, 9], [0, 10, 5]]).to(DEV))); show("ssr", torch.searchsorted(s, torch.tensor([3, 6, 9]).to(DEV), right=True))
    show("bucket", torch.bucketize(torch.tensor([3, 6, 9]).to(DEV), s)); show("ss_side", torch.searchsorted(s, 5, side="right"))
    i = torch.tensor([0, 1, 1, 3, 2, 1, 7]).to(DEV)
    show("bincount", torch.bincount(i)); show("bincountw", torch.bincount(i, weights=torch.linspace(0, 1, 7).to(DEV))); show("bincountm", i.bincount(minlength=10))
    show("histc", torch.histc(x, bins=4, min=-1, max=1)); show("histc2", torch.histc(x, bins=5))
    u = torch.tensor([3, 1, 2, 3, 1, 1, 5]).to(DEV)
    show("unique", torch.unique(u)); show("unique_i", torch.unique(u, return_inverse=True, return_counts=True))
    show("uc", torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]).to(DEV), return_inverse=True, return_counts=True))
    show("udim", torch.unique(torch.tensor([[1, 2], [3, 4], [1, 2]]).to(DEV), dim=0, return_inverse=True, return_counts=True))
    src = torch.arange(1., 7.).to(DEV); idx = torch.tensor([0, 1, 0, 1, 2, 1]).to(DEV)
    for r in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            show("sr_%s_%s" % (r, inc), torch.ones(4).to(DEV).scatter_reduce(0, idx, src, r, include_self=inc))
    show("sr2", torch.zeros(2, 3).to(DEV).scatter_reduce(1, torch.tensor([[0, 0, 2], [1, 1, 1]]).to(DEV), torch.randn(2, 3).to(DEV), "amax"))
    show("sr_prod2", torch.full((2, 3), 2.0).to(DEV).scatter_reduce(1, torch.tensor([[0, 0, 0], [2, 1, 2]]).to(DEV),
                                                             torch.randn(2, 3).to(DEV), "prod", include_self=False))
    show("sr_int", torch.ones(3, dtype=torch.int64).to(DEV).scatter_reduce(0, torch.tensor([0, 0, 1, 0]).to(DEV),
                                                                       torch.tensor([2, 3, 5, 7]).to(DEV), "prod"))
    show("sr_mean_int", torch.tensor([1, 2, 3]).to(DEV).scatter_reduce(0, torch.tensor([0, 0, 1]).to(DEV),
                                                                    torch.tensor([4, 5, 6]).to(DEV), "mean"))
    show("ifill", torch.zeros(3, 4).to(DEV).index_fill_(1, torch.tensor([0, 2]).to(DEV), -1.5))
    show("ifill2", x.index_fill(0, torch.tensor([1]).to(DEV), torch.tensor(2.0)))
    show("allclose", torch.allclose(x, x + 1e-9)); show("equal", torch.equal(x, x))
    show("bcast", torch.broadcast_shapes((3, 1), (1, 4)))
    show("result_type", torch.result_type(torch.tensor([1]), 1.0))
