# Reductions over dims: prod, amax, amin, aminmax, argmin. The kernels are
# the table's REDUCE and MAX_DIM families (ts_ops_reduce, _max); the
# checks and their messages are ATen's (PyTorch 1.13: ReduceOps.cpp).

import torch
from torch import Tensor
from torch._shape import _wrap_dim


def _return_type(name, fields):
    """A torch.return_types.NAME: a tuple with named fields."""
    def __new__(cls, items):
        return tuple.__new__(cls, items)

    def __repr__(self):
        return "torch.return_types.%s(\n%s)" % (name, ",\n".join("%s=%r" % (f, v) for f, v in zip(fields, self)))

    ns = {"__new__": __new__, "__repr__": __repr__, "__slots__": ()}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    return type(name, (tuple,), ns)


def _dims_tuple(dim):
    if dim is None:
        return ()
    return (dim,) if isinstance(dim, int) else tuple(dim)


def prod(self, dim=None, keepdim=False, *, dtype=None):
    if dim is not None and not isinstance(dim, int):
        raise TypeError("prod() received an invalid combination of arguments - got (%s), but expected one of:\n"
                        " * (*, torch.dtype dtype)\n"
                        " * (int dim, bool keepdim, *, torch.dtype dtype)\n"
                        " * (name dim, bool keepdim, *, torch.dtype dtype)\n" % type(dim).__name__)
    if dtype is not None and dtype != self.dtype:
        self = self.to(dtype)
    return torch._C._reduce("prod", self, _dims_tuple(dim), keepdim, dtype)


def _check_nonempty(self, name, dims):
    if not dims:
        if self.numel() == 0:
            raise RuntimeError("%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                               "reduction dim with the 'dim' argument." % name)
        return
    for d in dims:
        d = _wrap_dim(d, self.dim())
        if self.dim() and self.shape[d] == 0:
            raise IndexError("%s(): Expected reduction dim %d to have non-zero size." % (name, d))


def amax(self, dim=(), keepdim=False):
    dims = _dims_tuple(dim)
    _check_nonempty(self, "amax", dims)
    return torch._C._reduce("amax", self, dims, keepdim, None)


def amin(self, dim=(), keepdim=False):
    dims = _dims_tuple(dim)
    _check_nonempty(self, "amin", dims)
    return torch._C._reduce("amin", self, dims, keepdim, None)


def aminmax(self, *, dim=None, keepdim=False):
    dims = _dims_tuple(dim)
    if self.numel() == 0 and (not dims or (self.dim() and self.shape[_wrap_dim(dim, self.dim())] == 0)):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    return torch.return_types.aminmax((torch._C._reduce("amin", self, dims, keepdim, None),
                                       torch._C._reduce("amax", self, dims, keepdim, None)))


def _arg(self, dim, keepdim, is_min, name, first):
    """argmax/argmin; @first: dim's position in PyTorch's messages (1 for
    the method, 2 for torch.argmax (input, dim))"""
    if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
        raise TypeError("%s(): argument 'dim' (position %d) must be int, not %s"
                        % (name, first, type(dim).__name__))
    if not isinstance(keepdim, bool):
        raise TypeError("%s(): argument 'keepdim' (position %d) must be bool, not %s"
                        % (name, first + 1, type(keepdim).__name__))
    if dim is None:
        if self.numel() == 0:
            raise IndexError("%s(): Expected reduction dim to be specified for input.numel() == 0." % name)
        r = self.reshape(-1)._max(0, False, is_min, True)
        return r.reshape([1] * self.dim()) if keepdim else r
    return self._max(dim, keepdim, is_min, True)


def argmin(input, dim=None, keepdim=False):
    return _arg(input, dim, keepdim, True, "argmin", 2)


def argmax(input, dim=None, keepdim=False):
    return _arg(input, dim, keepdim, False, "argmax", 2)


# What Tensor.argmax/argmin (the C base's methods) call for all but their
# usual call
def _argmin_method(self, dim=None, keepdim=False):
    return _arg(self, dim, keepdim, True, "argmin", 1)


def _argmax_method(self, dim=None, keepdim=False):
    return _arg(self, dim, keepdim, False, "argmax", 1)


# their names in Python's own argument errors
_argmin_method.__name__ = _argmin_method.__qualname__ = "argmin"
_argmax_method.__name__ = _argmax_method.__qualname__ = "argmax"


_FUNCTIONS = ("prod", "amax", "amin", "aminmax", "argmin", "argmax")
# Tensor.argmax/argmin are the C base's (their usual call); it calls the
# functions here for the rest
_METHODS = ("prod", "amax", "amin", "aminmax")


def _install():
    g = globals()
    torch.return_types.aminmax = _return_type("aminmax", ("min", "max"))
    torch._install_names(g, methods=_METHODS, functions=_FUNCTIONS)
