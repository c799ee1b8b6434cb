# Shape ops: views (narrow, unbind, split, chunk, movedim, permute,
# flatten, squeeze) and the joins (cat, stack, hstack, vstack, ...).
#
# Views launch nothing, as in PyTorch: they are built from the core's view
# primitives (_slice, select, transpose, _view). Checks and their messages
# are ATen's (PyTorch 1.13: aten/src/ATen/native/TensorShape.cpp).

import builtins as _builtins

import torch
from torch import Tensor


def _wrap_dim(dim, ndim):
    n = _builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-n, n - 1, dim))
    return dim % n


def _dims_arg(dims):
    if len(dims) == 1 and isinstance(dims[0], (list, tuple, torch.Size)):
        return tuple(dims[0])
    return tuple(dims)


def _list_arg(v):
    return [v] if isinstance(v, int) else list(v)


def _fmt(values):
    return "[" + ", ".join(str(v) for v in values) + "]"


def narrow(self, dim, start, length):
    if self.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, self.dim())
    size = self.shape[dim]
    if isinstance(start, Tensor):
        start = start.item()
    # the end is a valid start, but not a valid dim specification
    if start != size:
        start = _wrap_dim(start, size)
    if length < 0 or start > size - length:
        raise RuntimeError("start (%d) + length (%d) exceeds dimension size (%d)." % (start, length, size))
    return self._slice(dim, start, start + length, 1)


def unbind(self, dim=0):
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = _wrap_dim(dim, self.dim())
    return tuple(self.select(dim, i) for i in range(self.shape[dim]))


def _split_sizes(self, sizes, dim):
    out, start = [], 0
    for s in sizes:
        out.append(self._slice(dim, start, start + s, 1))
        start += s
    return tuple(out)


def split(self, split_size, dim=0):
    if not isinstance(split_size, int):
        return split_with_sizes(self, split_size, dim)
    if self.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError("split expects split_size be non-negative, but got split_size=%d" % split_size)
    dim = _wrap_dim(dim, self.dim())
    size = self.shape[dim]
    if split_size == 0 and size != 0:
        raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension size of %d" % size)
    # an empty dim splits into one empty piece
    n = _builtins.max((size + split_size - 1) // split_size, 1) if split_size else 1
    sizes = [split_size] * n
    sizes[-1] = split_size - (split_size * n - size)
    return _split_sizes(self, sizes, dim)


def split_with_sizes(self, split_sizes, dim=0):
    if self.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, self.dim())
    sizes = list(split_sizes)
    size = self.shape[dim]
    if _builtins.any(s < 0 for s in sizes):
        raise RuntimeError("split_with_sizes expects split_sizes have only non-negative entries, but got "
                           "split_sizes=%s" % _fmt(sizes))
    if _builtins.sum(sizes) != size:
        raise RuntimeError("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at "
                           "dimension %d), but got split_sizes=%s" % (size, dim, _fmt(sizes)))
    return _split_sizes(self, sizes, dim)


def chunk(self, chunks, dim=0):
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: %d" % chunks)
    dim = _wrap_dim(dim, self.dim())
    size = self.shape[dim]
    step = (size + chunks - 1) // chunks
    if step == 0 and size == 0:
        return _split_sizes(self, [0] * chunks, dim)
    return split(self, step, dim)


def permute(self, *dims):
    dims = _dims_arg(dims)
    n = self.dim()
    if len(dims) != n:
        # (sic) 1.13's message names sparse_coo for every layout
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           "length of the desired ordering of dimensions i.e. input.dim() = %d is not equal "
                           "to len(dims) = %d" % (n, len(dims)))
    wrapped = [_wrap_dim(d, n) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = self
    order = list(range(n))
    for i, d in enumerate(wrapped):
        j = order.index(d)
        if j != i:
            out = out.transpose(i, j)
            order[i], order[j] = order[j], order[i]
    return out


def movedim(self, source, destination):
    src, dst = _list_arg(source), _list_arg(destination)
    n = self.dim()
    if len(src) != len(dst):
        raise RuntimeError("movedim: Invalid source or destination dims: source (%s dims) should contain the same "
                           "number of dims as destination (%s dims)" % (_fmt(src), _fmt(dst)))
    ws = [_wrap_dim(d, n) for d in src]
    wd = [_wrap_dim(d, n) for d in dst]
    if len(set(ws)) != len(ws):
        raise RuntimeError("movedim: repeated dim in `source` (%s)" % _fmt(src))
    if len(set(wd)) != len(wd):
        raise RuntimeError("movedim: repeated dim in `destination` (%s)" % _fmt(dst))
    if n == 0:
        return self._view(())
    order = [-1] * n
    for s, d in zip(ws, wd):
        order[d] = s
    rest = iter(d for d in range(n) if d not in ws)
    order = [d if d >= 0 else next(rest) for d in order]
    return permute(self, order)


def flatten(self, start_dim=0, end_dim=-1):
    if self.dim() == 0:
        _wrap_dim(start_dim, 0)
        _wrap_dim(end_dim, 0)
        return self.reshape(1)
    n = self.dim()
    s, e = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shape = list(self.shape)
    flat = 1
    for d in shape[s:e + 1]:
        flat *= d
    return self.reshape(shape[:s] + [flat] + shape[e + 1:])


def squeeze(self, dim=None):
    # a view: selecting index 0 of a size-1 dim drops it, strides kept
    n = self.dim()
    if dim is None:
        dims = [d for d in range(n) if self.shape[d] == 1]
    else:
        d = _wrap_dim(dim, n)
        if n and self.shape[d] == 1:
            return self._squeeze_dim(d)
        dims = []
    out = self
    for d in reversed(dims):
        out = out.select(d, 0)
    return out


# Joins --------------------------------------------------------------------


def _result_dtype(tensors):
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = torch._dtypes[torch._C._promote_types(dt, t.dtype)]
    return dt


def _is_legacy_empty(t):
    # a 1-D tensor of size 0 is skipped by cat, whatever the others' rank
    return t.dim() == 1 and t.shape[0] == 0


def _out_grad_check(name, tensors, out):
    # an out= result records no graph: PyTorch refuses inputs that need one
    if out is not None and torch.is_grad_enabled() and _builtins.any(t.requires_grad for t in tensors):
        raise RuntimeError("%s(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad." % name)


def _join_out(name, shape, dtype, device, out):
    """cat/stack's destination: out= is checked (device, dtype) and resized
    by torch._out's rules, then written in place."""
    if out is None:
        return torch.empty(shape, dtype=dtype, device=device)
    torch._out.check_device(device, out)
    torch._out.joined(name, dtype, out, None)
    torch._out.resize_output(out, shape)
    return out


def cat(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if out is None and type(dim) is int:
        # the common case (one dtype and rank, matching off dim) in C;
        # NotImplemented sends the rest to the checks below
        result = torch._C._cat(tensors, dim, None, True, False)
        if result is not NotImplemented:
            return result
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.dim() == 0:
            raise RuntimeError("zero-dimensional tensor (at position %d) cannot be concatenated" % i)
    dtype = _result_dtype(tensors)
    parts = [t for t in tensors if not _is_legacy_empty(t)]
    ref = parts[0] if parts else tensors[0]
    d = _wrap_dim(dim, ref.dim())
    for i, t in enumerate(tensors):
        if _is_legacy_empty(t) or t is ref:
            continue
        if t.dim() != ref.dim():
            raise RuntimeError("Tensors must have same number of dimensions: got %d and %d" % (ref.dim(), t.dim()))
        for k in range(ref.dim()):
            if k != d and t.shape[k] != ref.shape[k]:
                raise RuntimeError("Sizes of tensors must match except in dimension %d. Expected size %d but got "
                                   "size %d for tensor number %d in the list." % (d, ref.shape[k], t.shape[k], i))
    _out_grad_check("cat", tensors, out)
    shape = list(ref.shape)
    if parts:
        shape[d] = _builtins.sum(t.shape[d] for t in parts)
    result = _join_out("cat", shape, dtype, ref.device, out)
    return torch._C._cat(tensors, d, result, out is None, False)


def stack(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    d = _wrap_dim(dim, tensors[0].dim() + 1)
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError("stack expects each tensor to be equal size, but got %s at entry 0 and %s at "
                               "entry %d" % (_fmt(tensors[0].shape), _fmt(t.shape), i))
    _out_grad_check("stack", tensors, out)
    shape = list(tensors[0].shape)
    shape.insert(d, len(tensors))
    result = _join_out("stack", shape, _result_dtype(tensors), tensors[0].device, out)
    return torch._C._cat(tensors, d, result, out is None, True)


def atleast_1d(*tensors):
    ts = _dims_arg(tensors)
    r = [t.reshape(1) if t.dim() == 0 else t for t in ts]
    return r[0] if len(tensors) == 1 and isinstance(tensors[0], Tensor) else tuple(r)


def atleast_2d(*tensors):
    ts = _dims_arg(tensors)
    r = [t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t for t in ts]
    return r[0] if len(tensors) == 1 and isinstance(tensors[0], Tensor) else tuple(r)


def atleast_3d(*tensors):
    def up(t):
        if t.dim() == 0:
            return t.reshape(1, 1, 1)
        if t.dim() == 1:
            return t.unsqueeze(0).unsqueeze(-1)
        if t.dim() == 2:
            return t.unsqueeze(-1)
        return t
    ts = _dims_arg(tensors)
    r = [up(t) for t in ts]
    return r[0] if len(tensors) == 1 and isinstance(tensors[0], Tensor) else tuple(r)


def _nonempty(name, tensors):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("%s expects a non-empty TensorList" % name)
    return tensors


def hstack(tensors, *, out=None):
    ts = atleast_1d(_nonempty("hstack", tensors))
    return cat(ts, 0 if ts[0].dim() == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    return cat(atleast_2d(_nonempty("vstack", tensors)), 0, out=out)


def dstack(tensors, *, out=None):
    return cat(atleast_3d(_nonempty("dstack", tensors)), 2, out=out)


def column_stack(tensors, *, out=None):
    ts = _nonempty("column_stack", tensors)
    ts = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in ts]
    return cat(ts, 1, out=out)


# Elements moved by position ---------------------------------------------

# the C++ type names ATen's out= dtype check prints
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


# ATen's ScalarType names
_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                 "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                 "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _triangle(self, diagonal, upper, out, name):
    if self.dim() == 0:
        raise IndexError("Dimension specified as -2 but tensor has no dimensions")
    _wrap_dim(-2, self.dim())
    if not isinstance(diagonal, int):
        raise TypeError("%s(): argument 'diagonal' (position 1) must be int, not %s"
                        % (name, type(diagonal).__name__))
    if out is not None and out is not self:
        if out.dtype != self.dtype:
            raise RuntimeError("Expected out tensor to have dtype %s, but got %s instead"
                               % (_CPP_NAMES[self.dtype._name], _CPP_NAMES[out.dtype._name]))
        torch._out.check_grad(name, (self, out))
        torch._out.check_device(self.device, out)
        torch._out.resize_output(out, self.shape)
    return torch._C._triangle(self, diagonal, upper, out)


def tril(self, diagonal=0, *, out=None):
    return _triangle(self, diagonal, False, out, "tril")


def triu(self, diagonal=0, *, out=None):
    return _triangle(self, diagonal, True, out, "triu")


def tril_(self, diagonal=0):
    return _triangle(self, diagonal, False, self, "tril_")


def triu_(self, diagonal=0):
    return _triangle(self, diagonal, True, self, "triu_")


def flip(self, *dims):
    dims = _dims_arg(dims)
    wrapped = [_wrap_dim(d, self.dim()) for d in dims]
    seen = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError("dim %d appears multiple times in the list of dims" % d)
        seen.add(d)
    mask = 0
    for d in wrapped:
        if self.dim():
            mask |= 1 << d
    return torch._C._flip(self, mask)


def fliplr(self):
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(self, 1)


def flipud(self):
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(self, 0)


def roll(self, shifts, dims=None):
    # ATen's CPU roll: the two pieces of each rolled dim joined by cat
    shifts, dims = _list_arg(shifts), ([] if dims is None else _list_arg(dims))
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        return roll(self.flatten(), shifts, 0).view(self.shape)
    if len(shifts) != len(dims):
        raise RuntimeError("shifts and dimensions must align. shifts: %d, dims:%d" % (len(shifts), len(dims)))
    out = self
    for shift, dim in zip(shifts, dims):
        dim = _wrap_dim(dim, out.dim())
        size = out.shape[dim] if out.dim() else 1
        if out.numel() == 0 or out.dim() == 0:
            out = out.clone()
            continue
        k = shift % size
        out = cat([out.narrow(dim, size - k, k), out.narrow(dim, 0, size - k)], dim)
    return out


def repeat(self, *sizes):
    sizes = list(_dims_arg(sizes))
    if len(sizes) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                           "of tensor")
    padded = [1] * (len(sizes) - self.dim()) + list(self.shape)
    target = [p * r for p, r in zip(padded, sizes)]
    for v in target:
        if v < 0:
            raise RuntimeError("Trying to create tensor with negative dimension %d: %s" % (v, _fmt(target)))
    # ATen's way: the result viewed as (r0, p0, r1, p1, ...), one copy of
    # the input expanded along each r
    result = torch.empty(target, dtype=self.dtype, device=self.device)
    if result.numel() == 0:
        return result
    pairs, src = [], []
    for p, r in zip(padded, sizes):
        pairs += [r, p]
        src += [1, p]
    result._view(tuple(pairs)).copy_(self.reshape(src).expand(pairs))
    return result


def tile(self, *dims):
    dims = list(_dims_arg(dims))
    return repeat(self, [1] * (self.dim() - len(dims)) + dims)


def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
    if repeats is None:
        # torch.repeat_interleave(repeats): each index i repeats[i] times
        return repeat_interleave(torch.arange(self.numel(), device=self.device), self)
    if dim is None:
        return repeat_interleave(self.flatten(), repeats, 0)
    dim = _wrap_dim(dim, self.dim())
    size = self.shape[dim] if self.dim() else 1
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.dtype not in (torch.int64, torch.int32):
            raise RuntimeError("\"repeat_interleave_%s\" not implemented for '%s'"
                               % ("cuda" if repeats.is_cuda else "cpu", _SCALAR_NAMES[repeats.dtype._name]))
        counts = repeats.tolist() if repeats.dim() else [repeats.item()] * size
        if len(counts) == 1 and size != 1:
            counts = counts * size
    else:
        counts = [repeats] * size
    if len(counts) != size:
        raise RuntimeError("repeats must have the same size as input along dim")
    if _builtins.any(c < 0 for c in counts):
        raise RuntimeError("repeats can not be negative")
    # a host sync on a GPU, as PyTorch's (it must know the output's size)
    index = [i for i, c in enumerate(counts) for _ in range(c)]
    return self.index_select(dim, torch.tensor(index, dtype=torch.int64, device=self.device))


row_stack = vstack
moveaxis = movedim
swapaxes = swapdims = Tensor.transpose

_METHODS = ("narrow", "unbind", "split", "split_with_sizes", "chunk", "permute", "movedim", "moveaxis",
            "flatten", "squeeze", "swapaxes", "swapdims", "tril", "triu", "tril_", "triu_", "flip", "fliplr",
            "flipud", "roll", "repeat", "tile", "repeat_interleave")
_FUNCTIONS = tuple(m for m in _METHODS if not m.endswith("_") and m != "repeat") + ("cat", "concat", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack",
                         "atleast_1d", "atleast_2d", "atleast_3d")
concat = cat


def _install():
    g = globals()
    torch._install_names(g, methods=_METHODS, functions=_FUNCTIONS)
    torch.promote_types = lambda a, b: torch._dtypes[torch._C._promote_types(a, b)]
