# Sorting along a dim (sort, argsort, msort, topk, kthvalue), scans
# (cumsum, cumprod) and scatter. The kernels are the table's SORT, SCAN
# and SCATTER families
# (ts-ops-sort.c); the checks and their messages are ATen's (PyTorch 1.13:
# Sorting.cpp, TensorCompare.cpp, ReduceOps.cpp).

import torch
from torch import Tensor
from torch._reduce import _return_type
from torch._shape import _wrap_dim


def _dim_size(self, dim):
    dim = _wrap_dim(dim, self.dim())
    return dim, (self.shape[dim] if self.dim() else 1)


def sort(self, dim=-1, descending=False, stable=False):
    dim, size = _dim_size(self, dim)
    return torch.return_types.sort(torch._C._sort("sort", self, dim, descending, 0, size))


def argsort(self, dim=-1, descending=False, stable=False):
    return sort(self, dim, descending, stable)[1]


def msort(self):
    return sort(self, 0)[0]


def topk(self, k, dim=-1, largest=True, sorted=True):
    dim, size = _dim_size(self, dim)
    if k < 0 or k > size:
        raise RuntimeError("selected index k out of range")
    if self.dtype == torch.bool:
        raise RuntimeError("\"topk_%s\" not implemented for 'Bool'" % ("cuda" if self.is_cuda else "cpu"))
    return torch.return_types.topk(torch._C._sort("topk", self, dim, largest, 0, k))


def kthvalue(self, k, dim=-1, keepdim=False):
    dim, size = _dim_size(self, dim)
    if k < 1 or k > size:
        raise RuntimeError("kthvalue(): selected number k out of range for dimension %d" % dim)
    values, indices = torch._C._sort("kthvalue", self, dim, False, k - 1, 1)
    if not keepdim and self.dim():
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return torch.return_types.kthvalue((values, indices))


def _scan(name, self, dim, dtype, out):
    if dim is None:
        raise TypeError("%s() received an invalid combination of arguments - got (), but expected one of:\n"
                        " * (int dim, *, torch.dtype dtype)\n"
                        " * (name dim, *, torch.dtype dtype)\n" % name)
    if out is not None and dtype is None:
        dtype = out.dtype
    # PyTorch 1.13's CPU kernels have no float16 (its CUDA ones do)
    if not self.is_cuda and (dtype or self.dtype) == torch.float16:
        raise RuntimeError("\"%s_out_cpu\" not implemented for 'Half'" % name)
    if out is not None and out is not self and out.shape != self.shape:
        raise NotImplementedError("%s(out=) into an output of another shape (a resize) is not supported by "
                                  "Tensorscope yet" % name)
    return torch._C._scan(name, self, dim, dtype, out)


def cumsum(self, dim=None, *, dtype=None, out=None):
    return _scan("cumsum", self, dim, dtype, out)


def cumprod(self, dim=None, *, dtype=None, out=None):
    return _scan("cumprod", self, dim, dtype, out)


def cumsum_(self, dim=None, *, dtype=None):
    return _scan("cumsum", self, dim, dtype or self.dtype, self)


def cumprod_(self, dim=None, *, dtype=None):
    return _scan("cumprod", self, dim, dtype or self.dtype, self)


_METHODS = ("sort", "argsort", "msort", "topk", "kthvalue", "cumsum", "cumprod", "cumsum_", "cumprod_")


def _install():
    g = globals()
    for name in ("sort", "topk", "kthvalue"):
        setattr(torch.return_types, name, _return_type(name, ("values", "indices")))
    for name in _METHODS + _SCATTER:
        setattr(Tensor, name, g[name])
        if not name.endswith("_"):
            setattr(torch, name, g[name])


# Scatter ------------------------------------------------------------------


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    if reduce is not None:
        raise NotImplementedError("scatter_(reduce=) is not supported by Tensorscope yet")
    if not isinstance(src, Tensor):
        # the value form: a tensor of it the index's shape (one fill more
        # than PyTorch, which reads the value in the kernel)
        value = src if value is None else value
        src = torch.full(index.shape, value, dtype=self.dtype, device=self.device)
    return torch._C._scatter_(self, dim, index, src, False)


def scatter_add_(self, dim, index, src):
    return torch._C._scatter_(self, dim, index, src, True)


def scatter(self, dim, index, src=None, *, value=None, reduce=None):
    return scatter_(self.clone(), dim, index, src, value=value, reduce=reduce)


def scatter_add(self, dim, index, src):
    return scatter_add_(self.clone(), dim, index, src)


_SCATTER = ("scatter_", "scatter_add_", "scatter", "scatter_add")
