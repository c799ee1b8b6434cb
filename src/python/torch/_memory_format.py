"""torch.memory_format: contiguous_format, channels_last (NHWC strides for a
4-D tensor), channels_last_3d (NDHWC for 5-D) and preserve_format, with
the conversions PyTorch makes from them: Tensor.to / contiguous / clone
(memory_format=...), is_contiguous(memory_format=...), empty and the
*_like factories, and Module.to(memory_format=...), which converts the
4-D and 5-D parameters only.

A conversion is one copy into a tensor with PyTorch's strides
(c10's get_channels_last_strides_2d/3d), as clone(memory_format=) is in
PyTorch. Elementwise ops lay out their results as TensorIterator does
(a channels_last or transposed input gives a result in its layout), and
to()/clone() keep a dense tensor's strides. What is not modeled:
convolutions, pooling and normalization return contiguous results where
PyTorch's keep a channels_last input's layout."""

import torch
from torch import Tensor


class _TorchConstant:
    """A named constant of the torch module (torch.channels_last,
    torch.strided): printed and pickled as that name."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return self._name


class memory_format(_TorchConstant):
    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# the dims from fastest to slowest: C, then the spatial dims from the last
_ORDER = {channels_last: (4, (1, 3, 2, 0)), channels_last_3d: (5, (1, 4, 3, 2, 0))}


def _check_rank(fmt, ndim):
    rank, _ = _ORDER[fmt]
    if ndim != rank:
        what = "channels_last" if fmt is channels_last else "channels_last_3d"
        raise RuntimeError("required rank %d tensor to use %s format" % (rank, what))


def _strides_for(fmt, shape):
    rank, order = _ORDER[fmt]
    strides = [0] * rank
    step = 1
    for d in order:
        strides[d] = step
        step *= shape[d]
    return strides


def _is_format(t, fmt):
    if fmt is None or fmt is contiguous_format or fmt is preserve_format:
        return _base_is_contiguous(t)
    rank, order = _ORDER[fmt]
    if t.dim() != rank:
        return False
    expected = 1
    shape, strides = t.shape, t.stride()
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _check_format(fmt):
    if fmt is not None and not isinstance(fmt, memory_format):
        raise TypeError("memory_format must be a torch.memory_format, not %s" % type(fmt).__name__)


def _strides_like(t, fmt):
    """c10's is_channels_last_strides_2d/3d: whether t's strides order its
    dims as fmt does; ambiguous cases (an N111 tensor) are contiguous."""
    rank, order = _ORDER[fmt]
    if t.dim() != rank:
        return False
    shape, strides = t.shape, t.stride()
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def _suggest(t):
    # suggest_memory_format: the layout t's strides are like
    for fmt in (channels_last, channels_last_3d):
        if _strides_like(t, fmt):
            return fmt
    return contiguous_format


def _dense_strides(t):
    """t's strides when t is non-overlapping and dense (its elements fill
    one block in some order of its dims), else None."""
    shape, strides = list(t.shape), list(t.stride())
    dims = sorted((d for d in range(t.dim()) if shape[d] != 1), key=lambda d: strides[d])
    expected = 1
    for d in dims:
        if strides[d] != expected:
            return None
        expected *= shape[d]
    return strides


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    extent = 0 if 0 in size else 1 + sum((n - 1) * st for n, st in zip(size, stride))
    dtype = dtype or torch.get_default_dtype()
    base = _base_empty(extent, dtype=dtype, device=device, pin_memory=pin_memory)
    t = torch._C._view_dtype(base, dtype, list(size), list(stride), 0)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _convert(t, fmt):
    """t with fmt's layout: t itself when it has it, else a copy."""
    if fmt is preserve_format:
        return t
    if fmt is contiguous_format:
        return _base_contiguous(t)
    _check_rank(fmt, t.dim())
    return t if _is_format(t, fmt) else _restrided(t, fmt)


def _empty_with(shape, fmt, **kwargs):
    if fmt is None or fmt is contiguous_format or fmt is preserve_format:
        return _base_empty(*shape, **kwargs)
    _check_rank(fmt, len(shape))
    return empty_strided(shape, _strides_for(fmt, shape), **kwargs)


# -- the wrapped entry points --------------------------------------------------------------------

_base_to = Tensor.to
_base_contiguous = Tensor.contiguous
_base_is_contiguous = Tensor.is_contiguous
_base_clone = Tensor.clone
_base_empty = torch.empty
_base_empty_like = torch.empty_like


def _to(self, *args, memory_format=None, **kwargs):
    if memory_format is None:
        return _base_to(self, *args, **kwargs)
    _check_format(memory_format)
    result = _base_to(self, *args, **kwargs)
    if memory_format is preserve_format:
        return result
    if memory_format is contiguous_format:
        return _base_contiguous(result)
    _check_rank(memory_format, result.dim())
    # to() keeps a tensor whose strides are already like the format's
    if _strides_like(result, memory_format):
        return result
    return _restrided(result, memory_format)


def _restrided(t, fmt):
    # one copy into a tensor with fmt's strides (c10's, size-1 dims included)
    out = empty_strided(t.shape, _strides_for(fmt, t.shape), dtype=t.dtype, device=t.device)
    return out.copy_(t)


def _contiguous(self, memory_format=contiguous_format):
    if memory_format is contiguous_format:
        return _base_contiguous(self)
    _check_format(memory_format)
    if memory_format is preserve_format:
        if _base_is_contiguous(self):
            return self
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _convert(self, memory_format)


def _is_contiguous(self, memory_format=contiguous_format):
    if memory_format is contiguous_format:
        return _base_is_contiguous(self)
    _check_format(memory_format)
    return _is_format(self, memory_format)


def _clone(self, *, memory_format=preserve_format):
    if memory_format is preserve_format:
        return _base_clone(self)    # empty_like's layout: the strides of a dense tensor, else suggested
    _check_format(memory_format)
    if memory_format is contiguous_format:
        return _base_clone(self) if _base_is_contiguous(self) else _base_contiguous(self)
    _check_rank(memory_format, self.dim())
    return _restrided(self, memory_format)


def empty(*size, memory_format=None, **kwargs):
    _check_format(memory_format)
    if memory_format is None or memory_format is contiguous_format:
        return _base_empty(*size, **kwargs)
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    shape = size[0] if len(size) == 1 and isinstance(size[0], (list, tuple, torch.Size)) else size
    requires_grad = kwargs.pop("requires_grad", False)
    t = _empty_with(tuple(shape), memory_format, **kwargs)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _like_format(t, memory_format):
    _check_format(memory_format)
    fmt = _suggest(t) if memory_format is None or memory_format is preserve_format else memory_format
    return fmt


def empty_like(t, dtype=None, device=None, requires_grad=False, memory_format=None, pin_memory=False):
    if memory_format is None and t.dim() not in (4, 5) and _base_is_contiguous(t):
        # the usual call: no layout to suggest (only 4-D and 5-D strides can be channels-last)
        return _base_empty_like(t, dtype=dtype, device=device, requires_grad=requires_grad, pin_memory=pin_memory)
    if (memory_format is None or memory_format is preserve_format) and not _base_is_contiguous(t):
        strides = _dense_strides(t)
        if strides is not None:
            return empty_strided(t.shape, strides, dtype=dtype or t.dtype, device=device or t.device,
                                 requires_grad=requires_grad, pin_memory=pin_memory)
    fmt = _like_format(t, memory_format)
    if fmt is contiguous_format:
        return _base_empty_like(t, dtype=dtype, device=device, requires_grad=requires_grad, pin_memory=pin_memory)
    _check_rank(fmt, t.dim())
    r = _empty_with(tuple(t.shape), fmt, dtype=dtype or t.dtype, device=device or t.device, pin_memory=pin_memory)
    return r.requires_grad_(requires_grad) if requires_grad else r


def _filled_like(t, value, dtype, device, requires_grad, memory_format):
    r = empty_like(t, dtype=dtype, device=device, memory_format=memory_format).fill_(value)
    return r.requires_grad_(requires_grad) if requires_grad else r


def zeros_like(t, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _filled_like(t, 0, dtype, device, requires_grad, memory_format)


def ones_like(t, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _filled_like(t, 1, dtype, device, requires_grad, memory_format)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _filled_like(t, fill_value, dtype, device, requires_grad, memory_format)


def clone(input, *, memory_format=preserve_format):
    return input.clone(memory_format=memory_format)


def _module_to(base):
    def to(self, *args, memory_format=None, **kwargs):
        _check_format(memory_format)
        module = base(self, *args, **kwargs)
        if memory_format is None or memory_format is preserve_format:
            return module

        def convert(t):
            return _convert(t, memory_format) if t.dim() in (4, 5) else t
        return module._apply(convert)
    return to


def _install():
    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format", "memory_format",
                 "empty", "empty_like", "zeros_like", "ones_like", "full_like", "clone", "empty_strided"):
        setattr(torch, name, globals()[name])
    Tensor.to = _to
    Tensor.contiguous = _contiguous
    Tensor.is_contiguous = _is_contiguous
    Tensor.clone = _clone
    torch.nn.Module.to = _module_to(torch.nn.Module.to)
