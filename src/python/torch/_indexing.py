"""PyTorch's subscript rules, over torch._C's index ops (ts-py-index.c).

Basic indices (ints, slices, None, ...) make views. Advanced ones (bool
masks, integer tensors and lists, Python bools) are gathered as PyTorch
does: each mask becomes its nonzero() columns (a host synchronization on a
device: the count decides the output's size), all of them broadcast
together, and the indexed dims are made adjacent (moved to the front when
a slice or an int separates them, as PyTorch's result puts them). The
kernels then take one (*B, k) int64 tensor stacking the k indices.

Error texts are PyTorch 1.13's, except where 2.x changed the rule: int32
index tensors are taken as long (2.x), and the message that refuses other
dtypes names them (tests/workloads/api/tensor_cuda).
"""

import builtins as _builtins
import sys as _sys
import warnings as _warnings

import torch as _torch
from torch.amp.autocast_mode import autocast_policy

_C = _torch._C


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _broadcast(shapes):
    """The broadcast of shapes, or None when they do not broadcast."""
    n = _builtins.max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for k, size in enumerate(s):
            d = n - len(s) + k
            if size != 1 and out[d] not in (1, size):
                return None
            if size != 1:
                out[d] = size
    return out


def _broadcast_or_raise(a, b):
    """Two operands' broadcast shape, with the binary ops' RuntimeError."""
    shape = _broadcast([a, b])
    if shape is None:
        n = _builtins.max(len(a), len(b))
        for d in range(n - 1, -1, -1):
            x = a[d - n + len(a)] if d - n + len(a) >= 0 else 1
            y = b[d - n + len(b)] if d - n + len(b) >= 0 else 1
            if x != y and x != 1 and y != 1:
                raise RuntimeError("The size of tensor a (%d) must match the size of tensor b (%d) at "
                                   "non-singleton dimension %d" % (x, y, d))
    return shape


# PyTorch 1.13's deprecation warnings of uint8 masks, with their suffix
_UINT8_INDEX = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead. "
                "(Triggered internally at  ./aten/src/ATen/native/IndexingUtils.h:27.)")
_UINT8_MASKED_FILL = ("masked_fill_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
                      "please use a mask with dtype torch.bool instead. (Triggered internally at  "
                      "./aten/src/ATen/native/TensorAdvancedIndexing.cpp:1646.)")


def _warn_user(message):
    """A UserWarning at the first frame outside torch, as a C++ warning
    surfaces at the Python line that called into it."""
    level, frame = 2, _sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "torch":
        frame, level = frame.f_back, level + 1
    _warnings.warn(message, UserWarning, stacklevel=level)


def _is_mask(i):
    return isinstance(i, _torch.Tensor) and i.dtype in (_torch.bool, _torch.uint8)


def _to_index(i):
    """A list index (or a tuple inside the subscript) as a tensor, on the
    host: _stack moves the indices to the device once, together."""
    if isinstance(i, (list, tuple)):
        i = _torch.tensor(list(i), dtype=None if len(i) else _torch.int64)
    if isinstance(i, _torch.Tensor) and i.dtype not in (_torch.int64, _torch.int32, _torch.bool, _torch.uint8):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return i


def _n_dims_used(index):
    n = 0
    for i in index:
        if i is None or i is Ellipsis or isinstance(i, _builtins.bool):
            continue
        n += i.dim() if _is_mask(i) else 1
    return n


def _index_check(t, index):
    """PyTorch's up-front checks: a 0-dim tensor takes no integer index, and
    there can be no more indices than dimensions (a bool mask counts its
    dimensions)."""
    if _n_dims_used(index) > t.dim():
        if t.dim() == 0 and isinstance(index[0], _builtins.int):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError("too many indices for tensor of dimension %d" % t.dim())


def _expand_ellipsis(t, index):
    if not _builtins.any(i is Ellipsis for i in index):
        return index
    k = [j for j, i in enumerate(index) if i is Ellipsis][0]
    fill = (slice(None),) * _builtins.max(t.dim() - _n_dims_used(index), 0)
    return index[:k] + fill + index[k + 1:]


def _check_mask(out, dim, src_dim, t, mask):
    span = list(out.shape[dim:dim + mask.dim()])
    for k, (m, o) in enumerate(zip(mask.shape, span)):
        if m != o:
            raise IndexError("The shape of the mask %s at index %d does not match the shape of the "
                             "indexed tensor %s at index %d"
                             % (_shape_str(mask.shape), k, _shape_str(t.shape), src_dim + k))


def _walk(t, index):
    """Applies the basic indices; returns the view and the advanced ones
    as (dim of the view, integer tensor) pairs, with the nonzero() tensor
    when a single mask is the only advanced index."""
    if not isinstance(index, tuple):
        index = (index,)
    index = tuple(_to_index(i) for i in index)
    _index_check(t, index)
    index = _expand_ellipsis(t, index)
    out, dim, src_dim, adv, masks = t, 0, 0, [], []
    for i in index:
        if i is None:
            out = out.unsqueeze(dim)
            dim += 1
        elif isinstance(i, _builtins.bool) or (_is_mask(i) and i.dim() == 0):
            # a 0-dim mask adds a dim of size 1 (True) or 0 (False)
            out = out.unsqueeze(dim)
            adv.append((dim, _torch.tensor([0] if _builtins.bool(i) else [], dtype=_torch.int64)))
            dim += 1
        elif isinstance(i, _builtins.int) or (isinstance(i, _torch.Tensor) and i.dim() == 0):
            # a 0-dim integer tensor is an int (its value read on the host),
            # and selects a view, as in PyTorch
            i = i if isinstance(i, _builtins.int) else i.item()
            size = out.size(dim)
            if i < -size or i >= size:
                raise IndexError("index %d is out of bounds for dimension %d with size %d" % (i, src_dim, size))
            out = out.select(dim, i)
            src_dim += 1
        elif isinstance(i, slice):
            out = _slice(out, dim, i)
            dim += 1
            src_dim += 1
        elif _is_mask(i):
            if i.dtype == _torch.uint8:
                _warn_user(_UINT8_INDEX)
            _check_mask(out, dim, src_dim, t, i)
            nz = _C._nonzero(i, "indexing with a boolean mask")
            masks.append(nz)
            adv.extend((dim + j, nz.select(1, j)) for j in range(i.dim()))
            dim += i.dim()
            src_dim += i.dim()
        elif isinstance(i, _torch.Tensor):
            adv.append((dim, i))
            dim += 1
            src_dim += 1
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             "Variables are valid indices (got %s)" % type(i).__name__)
    whole_mask = masks[0] if len(masks) == 1 and len(adv) == masks[0].shape[1] else None
    return out, adv, whole_mask


def _slice(out, dim, s):
    size = out.size(dim)
    start, stop, step = s.start, s.stop, s.step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step is not None and step < 0:
        raise ValueError("step must be greater than zero")
    return out._slice(dim, 0 if start is None else start,
                      size if stop is None else _builtins.min(stop, size) if stop >= 0 else stop,
                      1 if step is None else step)


class _Advanced:
    """An advanced subscript ready for the kernels: the view whose dims pos
    .. pos + k - 1 are indexed, the (*B, k) int64 indices, the result's
    shape."""

    def __init__(self, view, adv, whole_mask):
        dims = [d for d, _ in adv]
        shape = _broadcast([list(a.shape) for _, a in adv])
        if shape is None:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                             + ", ".join(_shape_str(a.shape) for _, a in adv))
        if dims == list(range(dims[0], dims[0] + len(dims))):
            self.pos = dims[0]
        else:
            view = view.permute(*(dims + [d for d in range(view.dim()) if d not in dims]))
            self.pos = 0
        self.view = view
        self.index = _stack(adv, shape, view.device) if whole_mask is None else _to(whole_mask, view.device)
        k = len(adv)
        self.shape = list(view.shape[:self.pos]) + shape + list(view.shape[self.pos + k:])


def _to(t, device):
    return t.to(device) if t.device != device else t


def _stack(adv, shape, device):
    """The (*B, k) int64 indices on device. Indices from the host (lists)
    are stacked there and copied over once, as PyTorch copies each list."""
    on_host = _builtins.all(a.device.type == "cpu" for _, a in adv)
    if len(adv) == 1:
        a = adv[0][1]
        return _to((a if a.dtype == _torch.int64 else a.to(_torch.int64)).unsqueeze(-1), device)
    index = _torch.empty(shape + [len(adv)], dtype=_torch.int64, device="cpu" if on_host else device)
    for j, (_, a) in enumerate(adv):
        index.select(-1, j).copy_(_to(a, index.device).expand(*shape))
    return _to(index, device)


def getitem(t, index):
    view, adv, whole_mask = _walk(t, index)
    if not adv:
        return view
    a = _Advanced(view, adv, whole_mask)
    return _C._index("index", a.view, a.pos, a.index)


def _values(t, value):
    """An assigned value as a tensor of t's dtype on t's device."""
    if not isinstance(value, _torch.Tensor):
        return _torch.tensor(value, dtype=t.dtype, device=t.device)
    if value.device != t.device and not (value.dim() == 0 and value.device.type == "cpu"):
        value = value.to(t.device)
    return value.to(t.dtype) if value.dtype != t.dtype else value


def _fill_value(t, value):
    """masked_fill's value, as a Python number."""
    if isinstance(value, _torch.Tensor):
        if value.dim() != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                               "with %d dimension(s)." % value.dim())
        value = value.item()
    return value


def _check_put_dtype(t, value):
    """index_put_ takes no other dtype, through a subscript too (a number
    is made a tensor of t's dtype; masked_fill_ converts its 0-dim value)."""
    if isinstance(value, _torch.Tensor) and value.dtype != t.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got %s for the "
                           "destination and %s for the source." % (_scalar_name(t.dtype), _scalar_name(value.dtype)))


def _put(a, value, accumulate, strict):
    """index_put_ of the prepared subscript a."""
    shape = list(value.shape) if isinstance(value, _torch.Tensor) else []
    while not strict and len(shape) > len(a.shape) and shape[0] == 1:
        shape = shape[1:]
    b = _broadcast([shape, a.shape])
    if b is None or b != a.shape:
        raise RuntimeError("shape mismatch: value tensor of shape %s cannot be broadcast to indexing "
                           "result of shape %s" % (_shape_str(value.shape), _shape_str(a.shape)))
    _check_put_dtype(a.view, value)
    value = _values(a.view, value)
    if value.device != a.view.device:
        value = value.to(a.view.device)
    _C._index_put_("index_put_", a.view, a.pos, a.index, value.reshape(shape).expand(*a.shape), accumulate)


def _single_mask(t, index):
    """The mask of `t[mask] = v` when it is the whole subscript: PyTorch's
    index_put_ runs that as masked_fill_ for a 0-dim value."""
    if isinstance(index, tuple) and len(index) == 1:
        index = index[0]
    return index if _is_mask(index) and index.dim() > 0 else None


def setitem(t, index, value, accumulate=False, strict=False):
    """t[index] = value, or t.index_put_ (strict: value keeps its leading
    dims of size 1)."""
    mask = _single_mask(t, index)
    if mask is not None and not accumulate and (not isinstance(value, _torch.Tensor) or value.dim() == 0):
        _check_mask(t, 0, 0, t, mask)
        if mask.dtype == _torch.uint8:
            _warn_user(_UINT8_MASKED_FILL)
        mask = mask.to(t.device) if mask.device != t.device else mask
        mask = mask.reshape(list(mask.shape) + [1] * (t.dim() - mask.dim())).expand(*t.shape)
        _C._masked_fill_(t, mask if mask.dtype == _torch.bool else mask.to(_torch.bool), _fill_value(t, value))
        return
    view, adv, whole_mask = _walk(t, index)
    if adv:
        _put(_Advanced(view, adv, whole_mask), value, accumulate, strict)
    elif isinstance(value, _torch.Tensor):
        view.copy_(value)
    else:
        view.fill_(value)


# The ops with names ----------------------------------------------------------


def _mask_arg(mask, name):
    if not isinstance(mask, _torch.Tensor) or mask.dtype not in (_torch.bool, _torch.uint8):
        raise RuntimeError("%s only supports boolean masks, but got mask with dtype %s"
                           % (name, getattr(mask, "dtype", type(mask).__name__)))
    if mask.dtype == _torch.uint8 and name == "masked_fill_":
        _warn_user(_UINT8_MASKED_FILL)
    return mask if mask.dtype == _torch.bool else mask.to(_torch.bool)


def masked_fill_(self, mask, value):
    if (isinstance(mask, _torch.Tensor) and mask.dtype is _torch.bool and mask.device is self.device
            and mask._shape == self._shape and not isinstance(value, _torch.Tensor)):
        # the usual call, which the checks below pass unchanged (a device is one object per value)
        _C._masked_fill_(self, mask, value)
        return self
    mask = _mask_arg(mask, "masked_fill_")
    mask = mask.to(self.device) if mask.device != self.device else mask
    if mask._shape != self._shape:     # a mask of self's shape needs no broadcast
        shape = _broadcast_or_raise(list(self.shape), list(mask.shape))
        if shape != list(self.shape):
            raise RuntimeError("output with shape %s doesn't match the broadcast shape %s"
                               % (_shape_str(self.shape), _shape_str(shape)))
        mask = mask.expand(*self.shape)
    _C._masked_fill_(self, mask, _fill_value(self, value))
    return self


def masked_fill(self, mask, value):
    """ATen's: clone the broadcast self, fill in place (two launches, as
    PyTorch's); self of the mask's shape is cloned as it is, as
    expand_outplace borrows it."""
    result = _C._masked_fill(self, mask, value)   # the usual call, in C
    if result is not NotImplemented:
        return result
    # ATen clones into a contiguous tensor, whatever self's layout
    if isinstance(mask, _torch.Tensor) and mask._shape == self._shape:
        return masked_fill_(self.clone(memory_format=_torch.contiguous_format), mask, value)
    shape = _broadcast_or_raise(list(mask.shape), list(self.shape))
    return masked_fill_(self.expand(*shape).clone(memory_format=_torch.contiguous_format), mask, value)


def masked_select(self, mask):
    mask = _mask_arg(mask, "masked_select:")
    shape = _broadcast_or_raise(list(mask.shape), list(self.shape))
    nz = _C._nonzero(mask.to(self.device).expand(*shape), "masked_select")
    return _C._index("masked_select", self.expand(*shape), 0, nz)


def masked_scatter_(self, mask, source):
    mask = _mask_arg(mask, "masked_scatter_")
    if source.dtype != self.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got%s and %s"
                           % (_scalar_name(self.dtype), _scalar_name(source.dtype)))
    nz = _C._nonzero(mask.to(self.device).expand(*self.shape), "masked_scatter_")
    n = nz.shape[0]
    if source.numel() < n:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    _C._index_put_("masked_scatter_", self, 0, nz, source.reshape(-1)._slice(0, 0, n, 1), False)
    return self


def masked_scatter(self, mask, source):
    shape = _broadcast_or_raise(list(mask.shape), list(self.shape))
    return masked_scatter_(self.expand(*shape).clone(memory_format=_torch.contiguous_format), mask, source)


def _scalar_name(dtype):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(str(dtype).replace("torch.", ""), str(dtype))


def _flat_index(op, index, device):
    if not isinstance(index, _torch.Tensor) or index.dtype != _torch.int64:
        raise RuntimeError("%s(): Expected a long tensor for index, but got %s"
                           % (op, _scalar_name(index.dtype) if isinstance(index, _torch.Tensor)
                              else type(index).__name__))
    return index.to(device).unsqueeze(-1)


def take(self, index):
    return _C._index("take", self.reshape(-1), 0, _flat_index("take", index, self.device))


def put_(self, index, source, accumulate=False):
    if index.numel() != source.numel():
        raise IndexError("put_(): Expected source and index to have the same number of elements, but got "
                         "source.numel() = %d, index.numel() = %d" % (source.numel(), index.numel()))
    if source.dtype != self.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got self.dtype = %s "
                           "and source.dtype = %s" % (_scalar_name(self.dtype), _scalar_name(source.dtype)))
    if not self.is_contiguous():
        raise _torch._unmodeled.not_modeled("put_ into a non-contiguous tensor")
    _C._index_put_("put_", self, 0, _flat_index("put_", index, self.device),
                   _values(self, source).reshape(list(index.shape)), accumulate)
    return self


def index_put_(self, indices, values, accumulate=False):
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put_(): argument 'indices' (position 1) must be tuple of Tensors, not %s"
                        % type(indices).__name__)
    setitem(self, tuple(slice(None) if i is None else i for i in indices), values, accumulate, True)
    return self


# autocast promotes the functional form (docs/amp.md)
@autocast_policy(cuda="promote")
def index_put(self, indices, values, accumulate=False):
    return index_put_(self.clone(), indices, values, accumulate)


def nonzero(self, *, as_tuple=False):
    nz = _C._nonzero(self, "nonzero")
    if not as_tuple:
        return nz
    if self.dim() == 0:
        return (nz.reshape(-1),)
    return tuple(nz.select(1, j) for j in range(self.dim()))
