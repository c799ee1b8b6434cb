# Sorting along a dim (sort, argsort, msort, topk, kthvalue), scans
# (cumsum, cumprod) and scatter. The kernels are the table's SORT, SCAN
# and SCATTER families
# (ts-ops-sort.c); the checks and their messages are ATen's (PyTorch 1.13:
# Sorting.cpp, TensorCompare.cpp, ReduceOps.cpp).

import torch
from torch import Tensor
from torch.amp.autocast_mode import autocast_policy
from torch._reduce import _return_type
from torch._shape import _SCALAR_NAMES, _fmt, _wrap_dim


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
    if out is not None and out is not self:  # out=, not the in-place form
        torch._out.check_grad(name, (self, out))
        torch._out.check_device(self.device, out)
        torch._out.dtype_from_out(name, (self,), kw := {"dtype": dtype}, (out,))
        dtype = kw["dtype"]
    # PyTorch 1.13's CPU kernels have no float16 (its CUDA ones do)
    if not self.is_cuda and (dtype or self.dtype) == torch.float16:
        raise RuntimeError("\"%s_out_cpu\" not implemented for 'Half'" % name)
    if out is not None and out is not self:
        torch._out.resize_output(out, self.shape)
    return torch._C._scan(name, self, dim, dtype, out)


def cumsum(self, dim=None, *, dtype=None, out=None):
    if out is None and dtype is None and dim is not None and self.dtype is not torch.float16:
        return torch._C._scan("cumsum", self, dim, None, None)   # what _scan's checks pass unchanged
    return _scan("cumsum", self, dim, dtype, out)


def cumprod(self, dim=None, *, dtype=None, out=None):
    if out is None and dtype is None and dim is not None and self.dtype is not torch.float16:
        return torch._C._scan("cumprod", self, dim, None, None)
    return _scan("cumprod", self, dim, dtype, out)


def cummax(self, dim):
    dim, size = _dim_size(self, dim)
    return torch.return_types.cummax(torch._C._sort("cummax", self, dim, False, 0, size))


def cummin(self, dim):
    dim, size = _dim_size(self, dim)
    return torch.return_types.cummin(torch._C._sort("cummin", self, dim, False, 0, size))


def cumsum_(self, dim=None, *, dtype=None):
    return _scan("cumsum", self, dim, dtype or self.dtype, self)


def cumprod_(self, dim=None, *, dtype=None):
    return _scan("cumprod", self, dim, dtype or self.dtype, self)


_METHODS = ("sort", "argsort", "msort", "topk", "kthvalue", "cumsum", "cumprod", "cumsum_", "cumprod_", "cummax",
            "cummin")


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


# autocast promotes the functional form (docs/amp.md)
@autocast_policy(cuda="promote")
def scatter_add(self, dim, index, src):
    return scatter_add_(self.clone(), dim, index, src)


_SCATTER = ("scatter_", "scatter_add_", "scatter", "scatter_add")


def _index_src(self, name, dim, index, source):
    """index_add_/index_copy_'s shared checks; the index vector as int64
    expanded to the source's shape (the scatter kernel's index)."""
    n = index.numel()
    for k, (a, b) in enumerate(zip([s for d, s in enumerate(self.shape) if d != dim],
                                   [s for d, s in enumerate(source.shape) if d != dim])):
        if a != b:
            if name == "index_copy_":
                raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. "
                                   "Destination slice shape: %d at dimension %d and source slice shape: %d at "
                                   "dimension %d." % (a, k, b, k))
            raise RuntimeError("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton "
                               "dimension %d" % (a, b, k))
    size = self.shape[dim] if self.dim() else 1
    if not self.is_cuda and n:
        # a CUDA kernel finds out on the device
        for k in index.reshape(-1).tolist():
            if not 0 <= k < size:
                if name == "index_add_":
                    raise IndexError("index out of range in self")
                raise IndexError("%s(): index %d is out of bounds for dimension %d with size %d"
                                 % (name, k, dim, size))
    shape = [1] * source.dim()
    if shape:
        shape[dim] = n
    return index.to(torch.int64).reshape(shape).expand(source.shape)


def index_add_(self, dim, index, source, *, alpha=1):
    dim = _wrap_dim(dim, self.dim())
    if index.dim() > 1:
        raise IndexError("index_add_(): Index is supposed to be a vector, but got dim: %d with type: %s and size: "
                         "%s" % (index.dim(), _SCALAR_NAMES[index.dtype._name], _fmt(index.shape)))
    if index.dtype not in (torch.int64, torch.int32):
        raise RuntimeError("index_add_(): Expected dtype int32/int64 for index but got: %s"
                           % _SCALAR_NAMES[index.dtype._name])
    if self.dtype != source.dtype:
        raise RuntimeError("index_add_(): self (%s) and source (%s) must have the same scalar type"
                           % (_SCALAR_NAMES[self.dtype._name], _SCALAR_NAMES[source.dtype._name]))
    ssize = source.shape[dim] if source.dim() else 1
    if index.numel() != ssize:
        raise RuntimeError("index_add_(): Number of indices (%d) should be equal to source.size(dim): (%d), for "
                           "dim: %d" % (index.numel(), ssize, dim))
    idx = _index_src(self, "index_add_", dim, index, source)
    if alpha != 1:
        source = source * alpha
    return torch._C._scatter_launch("index_add_", self, dim, idx, source)


def index_copy_(self, dim, index, source):
    dim = _wrap_dim(dim, self.dim())
    if index.dtype != torch.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got %s"
                           % _SCALAR_NAMES[index.dtype._name])
    idx = _index_src(self, "index_copy_", dim, index, source)
    return torch._C._scatter_launch("index_copy_", self, dim, idx, source)


def index_add(self, dim, index, source, *, alpha=1):
    return index_add_(self.clone(), dim, index, source, alpha=alpha)


@autocast_policy(cpu="promote")
def index_copy(self, dim, index, source):
    return index_copy_(self.clone(), dim, index, source)


_SCATTER += ("index_add_", "index_copy_", "index_add", "index_copy")


def _check_value(t):
    """t.item() for a check; with --no-data, which has no values to check,
    the copy to the host alone (the timeline is the same) and a value that
    passes (NaN)"""
    if torch._C._no_data():
        t.cpu()
        return float("nan")
    return t.item()


def one_hot(tensor, num_classes=-1):
    # ATen's: zeros, then scatter_ of ones along a new last dim
    if tensor.dtype != torch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor.")
    if num_classes == -1 and tensor.numel() == 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if tensor.numel():
        # a host sync on a GPU, as PyTorch's checks
        if _check_value(tensor.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = tensor.max().item() + 1
        elif _check_value(tensor.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    out = torch.zeros(list(tensor.shape) + [num_classes], dtype=torch.int64, device=tensor.device)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)


def _install():
    import torch.nn.functional
    g = globals()
    torch.nn.functional.one_hot = one_hot
    for name in ("sort", "topk", "kthvalue", "cummax", "cummin"):
        setattr(torch.return_types, name, _return_type(name, ("values", "indices")))
    names = _METHODS + _SCATTER
    # the in-place ones are methods alone
    torch._install_names(g, methods=names, functions=[n for n in names if not n.endswith("_")])

