"""torch.linalg: the norms and products of torch/_ops_more.py. The
decompositions and solvers (svd, eigh, qr, solve, inv, ...) are not
modeled yet and say so by name."""

from torch import _unmodeled

__getattr__ = _unmodeled.module_getattr(__name__)


def _install(ops):
    g = globals()
    g["vector_norm"] = ops["vector_norm"]
    g["matrix_norm"] = ops["matrix_norm"]
    g["norm"] = ops["linalg_norm"]
    g["vecdot"] = lambda x, y, *, dim=-1: (x * y).sum(dim)
    g["matmul"] = lambda a, b: a @ b
    g["diagonal"] = lambda A, *, offset=0, dim1=-2, dim2=-1: ops["diagonal"](A, offset, dim1, dim2)
