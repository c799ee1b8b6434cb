"""torch ops that ATen itself writes as compositions of other ops
(CompositeImplicitAutograd: meshgrid, tensordot, kron, diff, cross,
nansum's where, quantile's sort, ...). They run the ops PyTorch runs for
them, so their launches, values and graph nodes are those ops' own.
Each follows its ATen source (aten/src/ATen/native/*.cpp, 1.13) and was
checked against python3-torch 1.13: tests/workloads/api/ops_composite.py."""

import builtins
import itertools
import math
import warnings

import torch
from torch import Tensor
from torch._shape import _SCALAR_NAMES, _wrap_dim


def _tensors_arg(tensors):
    # f(a, b) and f([a, b]) are both PyTorch's forms
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


# -- grids and products ------------------------------------------------------------------------

def _into(result, out):
    """out= of an op composed here: out, resized to the result and holding
    its values; the result itself without out."""
    if out is None:
        return result
    out.resize_(result.shape).copy_(result)
    return out


def meshgrid(*tensors, indexing=None):
    tensors = _tensors_arg(tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                      "argument. (Triggered internally at  ./aten/src/ATen/native/TensorShape.cpp:3190.)",
                      stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: %s' % indexing)
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: %s" % t)
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have the same "
                               "dtype.")
        if t.device != tensors[0].device:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have the same "
                               "device.")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = [t.numel() for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[i] = -1
        grids.append(t.view(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    tensors = _tensors_arg(tensors)
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError("Expect a 1D vector, but got shape %s" % list(t.shape))
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return torch.stack([g.flatten() for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    if input.dim() != 1:
        raise RuntimeError("Expect a 1D vector, but got shape %s" % list(input.shape))
    if r < 0:
        raise RuntimeError("Expect a non-negative number, but got %d" % r)
    if r == 0:
        return torch.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.numel()), r))
    if not rows:
        return torch.empty(0, r, dtype=input.dtype, device=input.device)
    index = torch.tensor(rows, dtype=torch.int64, device=input.device)
    return input[index]


def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError("tensordot expects dims >= 0, but got dims=%d" % dims)
        if dims > builtins.min(a.dim(), b.dim()):
            raise RuntimeError("tensordot expects dims < ndim_a or ndim_b, but got dims=%d" % dims)
        dims_a = list(range(a.dim() - dims, a.dim()))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    dims_a = [_wrap_dim(d, a.dim()) for d in dims_a]
    dims_b = [_wrap_dim(d, b.dim()) for d in dims_b]
    size = 1
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError("contracted dimensions need to match, but first has size %d in dim %d and "
                               "second has size %d in dim %d" % (a.shape[da], da, b.shape[db], db))
        size *= a.shape[da]
    keep_a = [d for d in range(a.dim()) if d not in dims_a]
    keep_b = [d for d in range(b.dim()) if d not in dims_b]
    rows = math.prod(a.shape[d] for d in keep_a)
    cols = math.prod(b.shape[d] for d in keep_b)
    left = a.permute(keep_a + dims_a).reshape(rows, size)
    right = b.permute(dims_b + keep_b).reshape(size, cols)
    result = left.mm(right).reshape([a.shape[d] for d in keep_a] + [b.shape[d] for d in keep_b])
    return _into(result, out)


def inner(input, other, *, out=None):
    if input.dim() == 0 or other.dim() == 0:
        result = input * other
    else:
        if input.shape[-1] != other.shape[-1]:
            raise RuntimeError("inner() the last dimension must match on both input tensors but got shapes "
                               "%s and %s" % (list(input.shape), list(other.shape)))
        result = tensordot(input, other, ([-1], [-1]))
    return _into(result, out)


def kron(input, other, *, out=None):
    nd = builtins.max(input.dim(), other.dim())
    a = input.reshape((1,) * (nd - input.dim()) + tuple(input.shape))
    b = other.reshape((1,) * (nd - other.dim()) + tuple(other.shape))
    # a's dims at the even places, b's at the odd: their product interleaves
    a_view, b_view, shape = [], [], []
    for i in range(nd):
        a_view += [a.shape[i], 1]
        b_view += [1, b.shape[i]]
        shape.append(a.shape[i] * b.shape[i])
    result = (a.reshape(a_view) * b.reshape(b_view)).reshape(shape)
    return _into(result, out)


def block_diag(*tensors):
    tensors = _tensors_arg(tensors)
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions. Input %d "
                               "has %d dimensions" % (i, t.dim()))
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not mats:
        return torch.empty(1, 0)
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = torch.promote_types(dtype, m.dtype)
    rows = builtins.sum(m.shape[0] for m in mats)
    cols = builtins.sum(m.shape[1] for m in mats)
    result = torch.zeros(rows, cols, dtype=dtype, device=mats[0].device)
    r = c = 0
    for m in mats:
        if m.device != result.device:
            raise RuntimeError("torch.block_diag: input tensors must all be on the same device. Input 0 is on "
                               "device %s and input %d is on device %s" % (result.device, mats.index(m), m.device))
        result[r:r + m.shape[0], c:c + m.shape[1]] = m
        r += m.shape[0]
        c += m.shape[1]
    return result


def diagflat(input, offset=0):
    return torch.diag(input.contiguous().view(-1), offset)


def vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = torch.promote_types(x.dtype, torch.int64)
    result = torch.ones(x.shape[0], n, dtype=dtype, device=x.device)
    if n > 1:
        result[:, 1:] = x.unsqueeze(1).to(dtype).expand(x.shape[0], n - 1)
        result[:, 1:] = torch.cumprod(result[:, 1:], dim=1)
    return result if increasing else result.flip(1)


def _tri_indices(row, col, offset, upper, dtype, device):
    rows, cols = [], []
    for i in range(row):
        for j in range(col):
            if (j - i >= offset) if upper else (j - i <= offset):
                rows.append(i)
                cols.append(j)
    return torch.tensor([rows, cols], dtype=dtype or torch.int64, device=device).reshape(2, len(rows))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(row, col, offset, False, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(row, col, offset, True, dtype, device)


# -- shapes ------------------------------------------------------------------------------------

def broadcast_to(input, size):
    return input.expand(size)


def unflatten(input, dim, sizes):
    dim = _wrap_dim(dim, input.dim())
    sizes = list(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) == 1:
        known = math.prod(s for s in sizes if s != -1)
        if known:
            sizes[sizes.index(-1)] = input.shape[dim] // known
    if math.prod(sizes) != input.shape[dim]:
        raise RuntimeError("unflatten: Provided sizes %s don't multiply up to the size of dim %d (%d) in the "
                           "input tensor" % (list(sizes), dim, input.shape[dim]))
    return input.view(tuple(input.shape[:dim]) + tuple(sizes) + tuple(input.shape[dim + 1:]))


def tensor_split(input, indices_or_sections, dim=0):
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.dim() == 0:
            indices_or_sections = indices_or_sections.item()
        else:
            indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError("number of sections must be larger than 0, got %d" % sections)
        small, extra = divmod(n, sections)
        bounds, start = [], 0
        for i in range(sections):
            size = small + (1 if i < extra else 0)
            bounds.append((start, start + size))
            start += size
    else:
        cuts = [0] + list(indices_or_sections) + [n]
        bounds = [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]
    result = []
    for begin, end in bounds:
        begin = builtins.min(builtins.max(begin, 0), n)
        end = builtins.min(builtins.max(end, begin), n)
        result.append(input.narrow(d, begin, end - begin))
    return tuple(result)


def _split_by(name, input, sections, dim, min_dims):
    if input.dim() < min_dims:
        raise RuntimeError("torch.%s requires a tensor with at least %d dimension, but got a tensor with %d "
                           "dimensions!" % (name, min_dims, input.dim()))
    if isinstance(sections, int):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError("torch.%s attempted to split along dimension %d, but the size of the dimension %d "
                               "is not divisible by the split_size %d!" % (name, dim, size, sections))
    return tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    return _split_by("hsplit", input, indices_or_sections, 0 if input.dim() == 1 else 1, 1)


def vsplit(input, indices_or_sections):
    return _split_by("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    return _split_by("dsplit", input, indices_or_sections, 2, 3)


def rot90(input, k=1, dims=(0, 1)):
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError("expected total rotation dims == 2, but got dims = %d" % len(dims))
    if input.dim() < 2:
        raise RuntimeError("expected total dims >= 2, but got total dims = %d" % input.dim())
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == input.dim():
        raise RuntimeError("expected rotation dims to be different, but got dim0 = %d and dim1 = %d"
                           % (dims[0], dims[1]))
    k %= 4
    if k == 1:
        return input.flip(dims[1]).transpose(dims[0], dims[1])
    if k == 2:
        return input.flip(dims)
    if k == 3:
        return input.flip(dims[0]).transpose(dims[0], dims[1])
    return input.clone()


def take_along_dim(input, indices, dim=None, *, out=None):
    if dim is None:
        result = input.reshape(-1).gather(0, indices.reshape(-1))
    else:
        d = _wrap_dim(dim, input.dim())
        if input.dim() != indices.dim():
            raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of "
                               "dimensions, but got %d dimensions for input, and %d dimensions for indices"
                               % (input.dim(), indices.dim()))
        shape_in = list(input.shape)
        shape_idx = list(indices.shape)
        shape_in[d] = shape_idx[d] = 1
        common = torch.broadcast_shapes(tuple(shape_in), tuple(shape_idx))
        idx_shape = list(common)
        idx_shape[d] = indices.shape[d]
        in_shape = list(common)
        in_shape[d] = input.shape[d]
        result = input.expand(in_shape).gather(d, indices.expand(idx_shape))
    return _into(result, out)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError("order must be non-negative but got %d" % n)
    d = _wrap_dim(dim, input.dim())
    parts = [t for t in (prepend, input, append) if t is not None]
    if len(parts) > 1:
        parts = [p if isinstance(p, Tensor) else torch.tensor(p, dtype=input.dtype, device=input.device)
                 for p in parts]
        input = torch.cat(parts, d)
    for _ in range(n):
        size = input.shape[d]
        if size == 0:
            break
        if input.dtype == torch.bool:
            input = torch.logical_xor(input.narrow(d, 1, size - 1), input.narrow(d, 0, size - 1))
        else:
            input = input.narrow(d, 1, size - 1) - input.narrow(d, 0, size - 1)
    return input


def cross(input, other, dim=None, *, out=None):
    if input.dim() != other.dim():
        raise RuntimeError("inconsistent tensors dimensions input: %d other: %d" % (input.dim(), other.dim()))
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                      "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change "
                      "to agree with that of linalg.cross in a future release.", stacklevel=2)
        found = [i for i, s in enumerate(input.shape) if s == 3]
        if not found:
            raise RuntimeError("no dimension of size 3 in input")
        dim = found[0]
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError("linalg.cross: inputs dimension %d must have length 3. Got %d and %d"
                           % (dim, input.shape[d], other.shape[d]))
    a = [input.select(d, i) for i in range(3)]
    b = [other.select(d, i) for i in range(3)]
    result = torch.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], d)
    return _into(result, out)


# -- reductions --------------------------------------------------------------------------------

def count_nonzero(input, dim=None):
    nz = input != 0
    if dim is None:
        return nz.sum()
    return nz.sum(dim)


def _nan_zeroed(input):
    return torch.where(torch.isnan(input), torch.zeros((), dtype=input.dtype, device=input.device), input)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    if not input.is_floating_point():
        return input.sum(dim, keepdim=keepdim, dtype=dtype) if dim is not None else input.sum(dtype=dtype)
    x = _nan_zeroed(input)
    if dim is None:
        return x.sum(dtype=dtype)
    return x.sum(dim, keepdim=keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not input.is_floating_point():
        raise RuntimeError("nanmean(): expected input to have floating point dtype but got %s"
                           % _dtype_title(input.dtype))
    count = (~torch.isnan(input)).sum() if dim is None else (~torch.isnan(input)).sum(dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def _median_of_sorted(sorted_values, indices, n, d, keepdim):
    k = (n - 1) // 2
    values = sorted_values.narrow(d, k, 1)
    idx = indices.narrow(d, k, 1)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return values, idx


def _median(input, dim, keepdim, ignore_nan, name):
    if dim is None:
        flat = input.reshape(-1)
        if flat.numel() == 0:
            return torch.full((), float("nan"), dtype=input.dtype, device=input.device)
        s, _ = flat.sort()
        if ignore_nan:
            n = int((~torch.isnan(flat)).sum().item())
            return s[builtins.max(n - 1, 0) // 2] if n else s[0]
        if input.is_floating_point() and bool(torch.isnan(flat).any()):
            return torch.full((), float("nan"), dtype=input.dtype, device=input.device)
        return s[(flat.numel() - 1) // 2]
    d = _wrap_dim(dim, input.dim()) if input.dim() else 0
    x = input if input.dim() else input.reshape(1)
    if x.shape[d] == 0:
        raise IndexError("%s(): Expected reduction dim %d to have non-zero size." % (name, d))
    s, i = x.sort(d, stable=True)
    if ignore_nan:
        counts = (~torch.isnan(x)).sum(d, keepdim=True)
        k = ((counts - 1).clamp(min=0) // 2)
        values, idx = s.gather(d, k), i.gather(d, k)
        if not keepdim or not input.dim():
            values, idx = values.squeeze(d), idx.squeeze(d)
    else:
        values, idx = _median_of_sorted(s, i, x.shape[d], d, keepdim and input.dim() > 0)
        if x.is_floating_point():
            nan = torch.isnan(x).any(d, keepdim=keepdim and input.dim() > 0)
            if bool(nan.any()):
                first_nan = torch.isnan(x).to(torch.int64).argmax(d, keepdim=keepdim and input.dim() > 0)
                values = torch.where(nan, torch.full_like(values, float("nan")), values)
                idx = torch.where(nan, first_nan, idx)
    return torch.return_types.median((values, idx))


def median(input, dim=None, keepdim=False):
    return _median(input, dim, keepdim, False, "median")


def nanmedian(input, dim=None, keepdim=False):
    result = _median(input, dim, keepdim, True, "nanmedian")
    if dim is not None:
        return torch.return_types.nanmedian((result[0], result[1]))
    return result


def mode(input, dim=-1, keepdim=False):
    x = input if input.dim() else input.reshape(1)
    d = _wrap_dim(dim, x.dim())
    moved = x.movedim(d, -1)
    rows = moved.reshape(-1, moved.shape[-1]) if moved.numel() else moved.reshape(0, moved.shape[-1])
    values, indices = [], []
    for row in rows.tolist():
        best, best_count, best_index = None, 0, 0
        counts = {}
        for v in row:
            counts[v] = counts.get(v, 0) + 1
        for v in sorted(counts):
            if counts[v] > best_count:
                best, best_count = v, counts[v]
        best_index = builtins.max(j for j, v in enumerate(row) if v == best)
        values.append(best)
        indices.append(best_index)
    shape = tuple(moved.shape[:-1])
    v = torch.tensor(values, dtype=input.dtype, device=input.device).reshape(shape)
    i = torch.tensor(indices, dtype=torch.int64, device=input.device).reshape(shape)
    if keepdim and input.dim():
        v, i = v.unsqueeze(d), i.unsqueeze(d)
    return torch.return_types.mode((v, i))


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    if not input.is_floating_point():
        raise RuntimeError("%s() input tensor must be either float or double dtype" % name)
    scalar_q = not isinstance(q, Tensor)
    qt = torch.tensor(q, dtype=input.dtype, device=input.device) if scalar_q else q
    if qt.dim() > 1:
        raise RuntimeError("%s() q must be a scalar or 1D tensor" % name)
    if qt.dtype != input.dtype:
        raise RuntimeError("%s() q tensor must be same dtype as the input tensor" % name)
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError("%s() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           "Got %s" % (name, interpolation))
    qs = qt.reshape(-1).tolist()
    if builtins.any(not (0 <= v <= 1) for v in qs):
        if scalar_q:
            raise RuntimeError("%s() q must be in the range [0, 1] but got %s" % (name, q))
        raise RuntimeError("%s() q values must be in the range [0, 1]" % name)
    if input.numel() == 0 and dim is None:
        raise RuntimeError("%s() input tensor must be non-empty" % name)
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        x = input if input.dim() else input.reshape(1)
        d = _wrap_dim(dim, x.dim())
    s, _ = x.sort(d)
    n = x.shape[d]
    nan = torch.isnan(s)
    valid = (~nan).sum(d, keepdim=True) if ignore_nan else torch.full_like(s.narrow(d, 0, 1), n, dtype=torch.int64)
    outs = []
    for qv in qs:
        rank = (valid - 1).clamp(min=0).to(input.dtype) * qv
        if interpolation == "lower":
            rank = rank.floor()
        elif interpolation == "higher":
            rank = rank.ceil()
        elif interpolation == "nearest":
            rank = rank.round()
        lo = rank.floor().to(torch.int64)
        hi = rank.ceil().to(torch.int64)
        v_lo = s.gather(d, lo)
        v_hi = s.gather(d, hi)
        if interpolation == "midpoint":
            val = v_lo + (v_hi - v_lo) * torch.where(hi > lo, 0.5, 0.0).to(input.dtype)
        else:
            val = torch.lerp(v_lo, v_hi, rank - lo.to(input.dtype))
        if ignore_nan:
            val = torch.where(valid == 0, torch.full_like(val, float("nan")), val)
        else:
            val = torch.where(nan.any(d, keepdim=True), torch.full_like(val, float("nan")), val)
        if dim is None:
            val = val.reshape(())
            if keepdim:
                val = val.reshape((1,) * input.dim())
        elif not keepdim or not input.dim():
            val = val.squeeze(d)
        outs.append(val)
    if scalar_q or qt.dim() == 0:
        return outs[0]
    return torch.stack(outs)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def cov(input, *, correction=1, fweights=None, aweights=None):
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with %d "
                           "dimensions" % input.dim())
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    if fweights is None and aweights is None:
        if not x.is_floating_point():
            x = x.to(torch.get_default_dtype())
        avg = x.mean(1)
        norm = n - correction
        if norm <= 0:
            warnings.warn("cov(): degrees of freedom is <= 0 (Triggered internally at  "
                          "./aten/src/ATen/native/Correlation.cpp:100.)", stacklevel=2)
            norm = 0
        xm = x - avg.unsqueeze(1)
        c = xm.mm(xm.t()) / norm
        return c.squeeze()
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if not x.is_floating_point():
        x = x.to(torch.get_default_dtype())
    w = w.to(x.dtype)
    w_sum = w.sum()
    avg = (x * w).sum(1) / w_sum
    if correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    xm = x - avg.unsqueeze(1)
    c = (xm * w).mm(xm.t()) / norm.clamp(min=0)
    return c.squeeze()


def corrcoef(input):
    if input.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           "%d dimensions" % input.dim())
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clamp(-1, 1)


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    if isinstance(bins, Tensor):
        edges = bins.to(input.dtype)
    else:
        lo, hi = range if range is not None else ((input.min().item(), input.max().item()) if input.numel()
                                                  else (0.0, 1.0))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = torch.linspace(lo, hi, bins + 1, dtype=input.dtype, device=input.device)
    flat = input.reshape(-1)
    nb = edges.numel() - 1
    idx = torch.bucketize(flat, edges, right=True) - 1
    last = flat == edges[-1]
    idx = torch.where(last, torch.full_like(idx, nb - 1), idx)
    inside = (idx >= 0) & (idx < nb) & (flat >= edges[0]) & (flat <= edges[-1])
    w = weight.reshape(-1).to(input.dtype) if weight is not None else torch.ones_like(flat)
    hist = torch.zeros(nb, dtype=input.dtype, device=input.device)
    hist.index_add_(0, idx[inside], w[inside])
    if density:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    return torch.return_types.histogram((hist, edges))


# -- elementwise -------------------------------------------------------------------------------

def square(input, *, out=None):
    return torch.pow(input, 2, out=out) if out is not None else torch.pow(input, 2)


def square_(input):
    return input.pow_(2)


def true_divide(input, other, *, out=None):
    return torch.div(input, other, out=out) if out is not None else torch.div(input, other)


def _float_of(input):
    return input if input.is_floating_point() else input.to(torch.get_default_dtype())


def deg2rad(input, *, out=None):
    if input.dtype == torch.bool:
        raise RuntimeError("deg2rad is not supported for bool tensors.")
    return _float_of(input) * (math.pi / 180.0)


def rad2deg(input, *, out=None):
    if input.dtype == torch.bool:
        raise RuntimeError("rad2deg is not supported for bool tensors.")
    return _float_of(input) * (180.0 / math.pi)


def ldexp(input, other, *, out=None):
    return input * torch.pow(2, other)


def isneginf(input, *, out=None):
    if input.is_floating_point():
        return input == float("-inf")
    return torch.zeros_like(input, dtype=torch.bool)


def isposinf(input, *, out=None):
    if input.is_floating_point():
        return input == float("inf")
    return torch.zeros_like(input, dtype=torch.bool)


def isreal(input):
    return torch.ones_like(input, dtype=torch.bool)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    e = elements if isinstance(elements, Tensor) else torch.tensor(elements)
    t = test_elements if isinstance(test_elements, Tensor) else torch.tensor(test_elements, device=e.device)
    hit = (e.reshape(-1, 1) == t.reshape(1, -1)).any(1).reshape(e.shape)
    return ~hit if invert else hit


def argwhere(input):
    return input.nonzero()


def heaviside(input, values, *, out=None):
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    zero = torch.zeros((), dtype=input.dtype, device=input.device)
    one = torch.ones((), dtype=input.dtype, device=input.device)
    return torch.where(input == 0, values, torch.where(input > 0, one, zero))


def logaddexp(input, other, *, out=None):
    # ATen's kernel: m + log1p(exp(-|a - b|)), and a itself where both are
    # the same infinity
    m = torch.maximum(input, other)
    d = (input - other).abs()
    result = m + torch.log1p(torch.exp(-d))
    same_inf = torch.isinf(m) & (input == other)
    return torch.where(same_inf, input, result)


def logaddexp2(input, other, *, out=None):
    m = torch.maximum(input, other)
    d = (input - other).abs()
    result = m + torch.log1p(torch.exp2(-d)) / math.log(2)
    same_inf = torch.isinf(m) & (input == other)
    return torch.where(same_inf, input, result)


def xlogy(input, other, *, out=None):
    if not isinstance(input, Tensor):
        input = torch.tensor(input, device=other.device)
    if not isinstance(other, Tensor):
        other = torch.tensor(other, device=input.device)
    x, y = torch.broadcast_tensors(input, other)
    dtype = torch.promote_types(x.dtype, y.dtype)
    if not dtype.is_floating_point:
        dtype = torch.get_default_dtype()
    x, y = x.to(dtype), y.to(dtype)
    result = torch.where(x == 0, torch.zeros((), dtype=dtype, device=x.device), x * torch.log(y))
    return torch.where(torch.isnan(y), y, result)


def sinc(input, *, out=None):
    x = _float_of(input)
    px = x * math.pi
    return torch.where(x == 0, torch.ones((), dtype=x.dtype, device=x.device), torch.sin(px) / px)


def float_power(input, exponent, *, out=None):
    dt = torch.float64
    base = input.to(dt) if isinstance(input, Tensor) else input
    exp = exponent.to(dt) if isinstance(exponent, Tensor) else exponent
    return torch.pow(base, exp)


def float_power_(input, exponent):
    if input.dtype != torch.float64:
        raise RuntimeError("the base given to float_power_ has dtype %s but the operation's result requires "
                           "dtype Double" % _dtype_title(input.dtype))
    return input.copy_(float_power(input, exponent))


def _dtype_title(dtype):
    # c10's ScalarType name ("Float", "Long"), as PyTorch's messages print it
    return _SCALAR_NAMES.get(dtype._name, str(dtype))


def _int_only(name, *tensors):
    for t in tensors:
        if t.is_floating_point() or t.dtype == torch.bool:
            raise RuntimeError('"%s_cpu" not implemented for \'%s\'' % (name, _dtype_title(t.dtype)))


def gcd(input, other, *, out=None):
    _int_only("gcd", input, other)
    a, b = torch.broadcast_tensors(input, other)
    dtype = torch.promote_types(a.dtype, b.dtype)
    values = [math.gcd(x, y) for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist())]
    return torch.tensor(values, dtype=dtype, device=a.device).reshape(a.shape)


def lcm(input, other, *, out=None):
    _int_only("lcm", input, other)
    a, b = torch.broadcast_tensors(input, other)
    dtype = torch.promote_types(a.dtype, b.dtype)
    values = [abs(x * y) // math.gcd(x, y) if x and y else 0
              for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist())]
    return torch.tensor(values, dtype=dtype, device=a.device).reshape(a.shape)


def renorm(input, p, dim, maxnorm):
    d = _wrap_dim(dim, input.dim())
    others = [i for i in range(input.dim()) if i != d]
    norms = torch.linalg.vector_norm(input, p, dim=others, keepdim=True)
    factor = torch.where(norms > maxnorm, maxnorm / (norms + 1e-7), torch.ones_like(norms))
    return input * factor


def trapezoid(y, x=None, *, dx=None, dim=-1):
    d = _wrap_dim(dim, y.dim())
    n = y.shape[d]
    if n == 0:
        return y.sum(d)
    left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
    if x is None:
        return (left + right).sum(d) * ((1 if dx is None else dx) / 2.0)
    xd = x.diff(dim=d if x.dim() == y.dim() else -1)
    if x.dim() == 1 and y.dim() > 1:
        view = [1] * y.dim()
        view[d] = -1
        xd = xd.view(view)
    return ((left + right) * xd).sum(d) / 2.0


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    d = _wrap_dim(dim, y.dim())
    n = y.shape[d]
    left, right = y.narrow(d, 0, builtins.max(n - 1, 0)), y.narrow(d, 1, builtins.max(n - 1, 0))
    if x is None:
        return ((left + right) * ((1 if dx is None else dx) / 2.0)).cumsum(d)
    xd = x.diff(dim=d if x.dim() == y.dim() else -1)
    if x.dim() == 1 and y.dim() > 1:
        view = [1] * y.dim()
        view[d] = -1
        xd = xd.view(view)
    return ((left + right) * xd / 2.0).cumsum(d)


def _any_all(input, dim, keepdim, is_any):
    # one bool result per reduced slice; uint8 input gives uint8, as ATen's
    # any/all keep the legacy byte result
    nz = input != 0
    if dim is None:
        hit = nz.sum() > 0 if is_any else nz.sum() == input.numel()
    else:
        d = _wrap_dim(dim, builtins.max(input.dim(), 1))
        count = nz.sum(d, keepdim=keepdim)
        hit = count > 0 if is_any else count == (input.shape[d] if input.dim() else 1)
    return hit.to(torch.uint8) if input.dtype == torch.uint8 else hit


def _any_all_out(name, input, dim, keepdim, out, is_any):
    """out= of any/all (it was ignored): a bool or uint8 out takes the
    result, resized as ATen's outs are; any other dtype is refused."""
    import torch._out
    return torch._out.run(name, lambda t: _any_all(t, dim, keepdim, is_any), (input,), {}, out,
                          torch._out.bool_or_byte)


def any(input, dim=None, keepdim=False, *, out=None):
    if out is not None:
        return _any_all_out("any", input, dim, keepdim, out, True)
    return _any_all(input, dim, keepdim, True)


def all(input, dim=None, keepdim=False, *, out=None):
    if out is not None:
        return _any_all_out("all", input, dim, keepdim, out, False)
    return _any_all(input, dim, keepdim, False)


def _exponential_(self, lambd=1.0, *, generator=None):
    """ATen's CPU exponential_: -1/lambda * log(1 - u) of a float64 uniform
    per element, rounded to the tensor's dtype (one uniform_ and the
    arithmetic here; PyTorch's CUDA kernel is one launch with its own
    transform, whose values this does not claim)."""
    if lambd < 0:
        raise RuntimeError("exponential_ expects lambda >= 0.0, but found lambda=%s" % lambd)
    u = torch.empty(self.shape, dtype=torch.float64, device=self.device).uniform_(0, 1, generator=generator)
    factor = -1.0 / lambd if lambd else -math.inf     # C's -1.0 / 0.0
    with torch.no_grad():
        return self.copy_((1 - u).log() * factor)


_SIGNED_BITS = {"float32": torch.int32, "float64": torch.int64, "float16": torch.int16, "bfloat16": torch.int16}


def signbit(input, *, out=None):
    """The sign bit, read from the float's bits (so -0.0 and a negative NaN
    count, as std::signbit)."""
    if input.dtype == torch.bool:
        return torch.zeros_like(input, dtype=torch.bool)
    if input.is_floating_point():
        bits = input.contiguous().view(_SIGNED_BITS[str(input.dtype).replace("torch.", "")])
        return bits < 0
    return input < 0


def pdist(input, p=2):
    """The distances of every pair i < j of input's rows, in row-major pair
    order (a gather of the pairs' difference, then its p-norm per pair)."""
    if input.dim() != 2:
        raise RuntimeError("pdist only supports 2D tensors, got: %dD" % input.dim())
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.size(0)
    if n < 2:
        return input.new_empty(0)
    rows = torch.triu_indices(n, n, 1, device=input.device)
    diff = input.index_select(0, rows[0]) - input.index_select(0, rows[1])
    return torch.linalg.vector_norm(diff, p, dim=1)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the buffer's memory (through NumPy, which shares
    it as PyTorch does)."""
    import numpy
    from torch import _numpy
    names = {v: k for k, v in _numpy._FROM_NUMPY.items()}
    if dtype not in names:
        raise NotImplementedError("torch.frombuffer of a %s buffer is not modeled by Tensorscope yet" % dtype)
    np_dtype = numpy.dtype(names[dtype])
    size = np_dtype.itemsize
    view = memoryview(buffer)
    if len(view) * view.itemsize - offset < size and count != 0:
        raise ValueError("both buffer length ({}) and count ({}) must not be 0".format(len(view), count))
    array = numpy.frombuffer(buffer, dtype=np_dtype, count=count, offset=offset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.from_numpy(array)
    if view.readonly:
        warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
                      "means you can write to the underlying (supposedly non-writable) buffer using the tensor. You "
                      "may want to copy the buffer to protect its data or make it writable before converting it to "
                      "a tensor. This type of warning will be suppressed for the rest of this program. (Triggered "
                      "internally at  ./torch/csrc/utils/tensor_new.cpp:1563.)", stacklevel=2)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _host_map(self, fn, values):
    if self.is_cuda:
        raise TypeError("apply_ is only implemented on CPU tensors")
    flat = self.reshape(-1).tolist()
    self.copy_(torch.tensor([fn(*v) for v in zip(flat, *values)], dtype=self.dtype).reshape(self.shape))
    return self


def _apply_(self, callable):
    return _host_map(self, callable, ())


def _map_(self, tensor, callable):
    return _host_map(self, callable, (tensor.expand_as(self).reshape(-1).tolist(),))


def _log_add_exp(acc, x):
    # ATen's _log_add_exp_helper: log1p(exp(min - max)) + max, and acc
    # itself where both are the same infinity
    low, high = torch.minimum(acc, x), torch.maximum(acc, x)
    low = torch.where(torch.isnan(x), x, low)
    high = torch.where(torch.isnan(x), x, high)
    out = torch.log1p(torch.exp(low - high)) + high
    same_inf = (low == high) & ~torch.isfinite(low)
    return torch.where(same_inf, acc, out)


def logcumsumexp(input, dim, *, out=None):
    """The running log-sum-exp along dim, accumulated in double as ATen's CPU
    scan (one step of ops per element of dim)."""
    if input.dim() == 0:
        return input.clone()
    d = _wrap_dim(dim, input.dim())
    if input.size(d) == 0:
        return input.clone()
    acc_dtype = torch.float64 if input.dtype in (torch.float32, torch.float64) else torch.float32
    x = input.to(acc_dtype)
    acc = x.select(d, 0)
    steps = [acc]
    for i in range(1, x.size(d)):
        acc = _log_add_exp(acc, x.select(d, i))
        steps.append(acc)
    return torch.stack(steps, d).to(input.dtype)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    return input.clone().index_reduce_(dim, index, source, reduce, include_self=include_self)


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """index_reduce_ as the scatter_reduce_ of index spread along source's
    other dims (the same reduction per target slice)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s."
                           % reduce)
    d = _wrap_dim(dim, builtins.max(self.dim(), 1))
    shape = [1] * source.dim()
    shape[d] = -1
    spread = index.reshape(shape).expand(source.shape)
    return self.scatter_reduce_(d, spread, source, reduce, include_self=include_self)


def _along(t, d, start, stop=None):
    n = t.size(d)
    start = start + n if start < 0 else start
    stop = n if stop is None else (stop + n if stop < 0 else stop)
    return t.narrow(d, start, builtins.max(stop - start, 0))


def _gradient_uniform(f, d, h, edge_order):
    center = (_along(f, d, 2) - _along(f, d, 0, -2)) / h
    if edge_order == 1:
        first = (_along(f, d, 1, 2) - _along(f, d, 0, 1)) / h
        last = (_along(f, d, -1) - _along(f, d, -2, -1)) / h
    else:
        first = (_along(f, d, 0, 1) * -1.5 + _along(f, d, 1, 2) * 2 - _along(f, d, 2, 3) * 0.5) / h
        last = (_along(f, d, -3, -2) * 0.5 + _along(f, d, -2, -1) * -2 + _along(f, d, -1) * 1.5) / h
    return torch.cat([first, center / 2, last], d)


def _gradient_coordinates(f, d, x, edge_order):
    shape = [1] * f.dim()
    shape[d] = -1
    dx = x.diff(1, 0)
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _along(f, d, 0, -2) + b * _along(f, d, 1, -1) + c * _along(f, d, 2)
    if edge_order == 1:
        first = (_along(f, d, 1, 2) - _along(f, d, 0, 1)) / dx[0]
        last = (_along(f, d, -1) - _along(f, d, -2, -1)) / dx[-1]
    else:
        a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
        b = (dx[0] + dx[1]) / (dx[0] * dx[1])
        c = (-dx[0]) / (dx[1] * (dx[0] + dx[1]))
        first = a * _along(f, d, 0, 1) + b * _along(f, d, 1, 2) + c * _along(f, d, 2, 3)
        a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
        b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
        c = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
        last = a * _along(f, d, -3, -2) + b * _along(f, d, -2, -1) + c * _along(f, d, -1)
    return torch.cat([first, center, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative estimate along each dim (ATen's formulas: central
    differences inside, one- or two-sided ones at the edges; scalar
    spacings or coordinate tensors)."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.dim())) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [_wrap_dim(d, input.dim()) for d in dims]
    if isinstance(spacing, (int, float)):
        spacing = [spacing] * len(dims)
    elif isinstance(spacing, Tensor):
        spacing = [spacing]
    spacing = list(spacing)
    if len(spacing) == 1 and len(dims) > 1 and not isinstance(spacing[0], Tensor):
        spacing = spacing * len(dims)
    if len(spacing) != len(dims):
        if dim is None:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or a list of length {} "
                               "but got a list of length {}".format(len(dims), len(spacing)))
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           "arguments to have the same length, but got a spacing argument of length {} and a dim "
                           "argument of length {}.".format(len(spacing), len(dims)))
    for d in dims:
        if input.size(d) < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    result = []
    for d, h in zip(dims, spacing):
        if isinstance(h, Tensor) and h.dim() > 0:
            result.append(_gradient_coordinates(f, d, h, edge_order))
        else:
            result.append(_gradient_uniform(f, d, h.item() if isinstance(h, Tensor) else h, edge_order))
    return tuple(result)


# -- PyTorch's other names for ops, and a few small ones ------------------------------------

_ALIASES = {"absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan", "arccosh": "acosh",
            "arcsinh": "asinh", "arctanh": "atanh", "arctan2": "atan2", "divide": "div", "multiply": "mul",
            "subtract": "sub", "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
            "not_equal": "ne", "negative": "neg", "fix": "trunc"}


def positive(input):
    if input.dtype == torch.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def ravel(input):
    return input.contiguous().view(-1)


def narrow_copy(input, dim, start, length):
    return input.narrow(dim, start, length).clone()


def _nan_ignoring(input, other, pick):
    # the number wins over a NaN; two NaNs give NaN
    a, b = torch.broadcast_tensors(input, other)
    picked = pick(a, b)
    return torch.where(torch.isnan(a), b, torch.where(torch.isnan(b), a, picked))


def fmax(input, other, *, out=None):
    return _nan_ignoring(input, other, torch.maximum)


def fmin(input, other, *, out=None):
    return _nan_ignoring(input, other, torch.minimum)


def frexp(input, *, out=None):
    """mantissa in [0.5, 1) and integer exponent, x = m * 2 ** e (std::frexp
    per element, on the host)."""
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    pairs = [math.frexp(v) for v in input.reshape(-1).tolist()]
    m = torch.tensor([p[0] for p in pairs], dtype=input.dtype).reshape(input.shape).to(input.device)
    e = torch.tensor([p[1] for p in pairs], dtype=torch.int32).reshape(input.shape).to(input.device)
    return torch.return_types.frexp((m, e))


def _inplace_of(fn):
    """The in-place form of a functional composition: the result copied
    into self (its gradient node is CopyBackwards)."""
    def method(self, *args, **kwargs):
        return self.copy_(fn(self, *args, **kwargs))
    method.__name__ = fn.__name__ + "_"
    return method


def _scatter_into(input, src, view):
    # a copy of input with src written where view(copy) is (PyTorch's
    # *_scatter ops: the functional form of writing a view)
    out = input.clone()
    view(out).copy_(src)
    return out


def select_scatter(input, src, dim, index):
    return _scatter_into(input, src, lambda t: t.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    return _scatter_into(input, src, lambda t: t.narrow(dim, 0, t.size(dim))[
        (slice(None),) * _wrap_dim(dim, t.dim()) + (slice(start, end, step),)])


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    out = input.clone()
    n = src.size(-1)
    rows = torch.arange(n, device=input.device) + builtins.max(-offset, 0)
    cols = torch.arange(n, device=input.device) + builtins.max(offset, 0)
    moved = out.movedim((dim1, dim2), (-2, -1))
    moved[..., rows, cols] = src
    return out


def _cauchy_(self, median=0, sigma=1, *, generator=None):
    """ATen's CPU cauchy_: median + sigma * tan(pi * (u - 0.5)) of a float64
    uniform per element."""
    u = torch.empty(self.shape, dtype=torch.float64, device=self.device).uniform_(0, 1, generator=generator)
    with torch.no_grad():
        return self.copy_(torch.tan((u - 0.5) * math.pi) * sigma + median)


def _geometric_(self, p, *, generator=None):
    """ATen's CPU geometric_: ceil(log(u) / log1p(-p)) of a float64 uniform."""
    if not 0 < p < 1:
        raise RuntimeError("geometric_ expects p to be in (0, 1), but got p=%s" % p)
    u = torch.empty(self.shape, dtype=torch.float64, device=self.device).uniform_(0, 1, generator=generator)
    with torch.no_grad():
        return self.copy_(torch.ceil(torch.log(u) / math.log1p(-p)))


# -- Tensor-only ---------------------------------------------------------------------------------

def _reshape_as(self, other):
    return self.reshape(other.shape)


def _sum_to_size(self, *size):
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple, torch.Size)) else size
    if not _expandable(size, tuple(self.shape)):
        raise RuntimeError("size {%s} is not expandable to size {%s}."
                           % (", ".join(map(str, size)), ", ".join(map(str, self.shape))))
    lead = self.dim() - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and self.shape[lead + i] != 1]
    out = self.sum(dims, keepdim=True) if dims else self
    return out.reshape(size) if lead or dims else out


def _expandable(size, shape):
    if len(size) > len(shape):
        return False
    for s, t in zip(reversed(size), reversed(shape)):
        if s != t and s != 1:
            return False
    return True


def _fill_diagonal_(self, fill_value, wrap=False):
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = builtins.min(self.shape)
    index = [torch.arange(n, device=self.device)] * self.dim()
    if wrap and self.dim() == 2 and self.shape[0] > self.shape[1] + 1:
        step = self.shape[1] + 1
        rows = torch.arange(0, self.shape[0], device=self.device)
        keep = (rows % step) < self.shape[1]
        rows = rows[keep]
        index = [rows, rows % step]
    self[tuple(index)] = fill_value
    return self


def _needs_graph(t):
    return t.requires_grad and torch.is_grad_enabled()


def _strided_view(t, shape, strides, offset):
    # a view sharing t's storage (no autograd: callers take the graph path
    # when a gradient is needed)
    return torch._C._view_dtype(t, t.dtype, list(shape), list(strides), offset)


def _flat_positions(shape, strides, offset):
    """The storage positions of a strided geometry, as an int64 tensor of
    that shape (host arithmetic: the index tensor is an input, as
    PyTorch's would be built on the host for these shapes)."""
    positions = [offset]
    for n, st in zip(shape, strides):
        positions = [p + i * st for p in positions for i in range(n)]
    return torch.tensor(positions, dtype=torch.int64).reshape(tuple(shape))


def _unfold(self, dimension, size, step):
    nd = builtins.max(self.dim(), 1)
    d = _wrap_dim(dimension, nd)
    length = self.shape[d] if self.dim() else 1
    if size > length:
        raise RuntimeError("maximum size for tensor at dimension %d is %d but size is %d" % (d, length, size))
    if step <= 0:
        raise RuntimeError("step is %d but must be > 0" % step)
    windows = (length - size) // step + 1
    if self.dim() == 0:
        return self.reshape(1)
    shape = list(self.shape)
    strides = list(self.stride())
    shape[d] = windows
    shape.append(size)
    strides.append(strides[d])
    strides[d] *= step
    if not _needs_graph(self):
        return _strided_view(self, shape, strides, self.storage_offset())
    # with a gradient to flow: the windows gathered (a copy; PyTorch's is a
    # view whose backward is UnfoldBackward0, which sums overlaps as the
    # gather's backward does)
    starts = torch.arange(windows, device=self.device) * step
    index = (starts.unsqueeze(1) + torch.arange(size, device=self.device).unsqueeze(0)).reshape(-1)
    picked = self.index_select(d, index)
    picked = picked.reshape(shape[:d] + [windows, size] + shape[d + 1:-1])
    return picked.movedim(d + 1, -1)


def as_strided(input, size, stride, storage_offset=None):
    offset = input.storage_offset() if storage_offset is None else storage_offset
    size, stride = list(size), list(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if not _needs_graph(input):
        return _strided_view(input, size, stride, offset)
    if not input.is_contiguous():
        raise NotImplementedError("as_strided of a non-contiguous tensor that requires grad is not modeled by "
                                  "Tensorscope yet")
    # a gather of the storage positions (a copy: PyTorch's is a view)
    flat = input.reshape(-1)
    positions = _flat_positions(size, stride, offset - input.storage_offset()).to(input.device)
    return flat.take(positions) if positions.numel() else flat.new_empty(size)


def logit(input, eps=None, *, out=None):
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    if eps is not None:
        x = x.clamp(eps, 1.0 - eps)
    return torch.log(x / (1 - x))


def logit_(input, eps=None):
    return input.copy_(logit(input, eps))


def sgn(input, *, out=None):
    return torch.sign(input)


def _resize_as_(self, other):
    return self.resize_(other.shape)


def _inplace_view(name, view):
    """unsqueeze_, squeeze_, t_, transpose_: self takes the view's geometry
    over the same storage. With a gradient to record (PyTorch's
    UnsqueezeBackward1 and friends) they are not modeled."""
    def method(self, *args, **kwargs):
        if self.requires_grad and torch.is_grad_enabled():
            raise NotImplementedError("Tensor.%s of a tensor that requires grad is not modeled by Tensorscope yet"
                                      % name)
        torch._C._set_data(self, view(self, *args, **kwargs))
        return self
    method.__name__ = name
    return method


def _mT(self):
    if self.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got %d-D tensor."
                           % self.dim())
    return self.transpose(-2, -1)


def _H(self):
    if self.dim() not in (0, 2):
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got %d-D tensor." % self.dim())
    return self.t() if self.dim() == 2 else self


_TORCH = ("meshgrid", "cartesian_prod", "combinations", "tensordot", "inner", "kron", "block_diag", "diagflat",
          "vander", "tril_indices", "triu_indices", "broadcast_to", "unflatten", "tensor_split", "hsplit",
          "vsplit", "dsplit", "rot90", "take_along_dim", "diff", "cross", "count_nonzero", "nansum", "nanmean",
          "median", "nanmedian", "mode", "quantile", "nanquantile", "cov", "corrcoef", "histogram", "square",
          "square_", "true_divide", "deg2rad", "rad2deg", "ldexp", "isneginf", "isposinf", "isreal", "isin",
          "argwhere", "heaviside", "logaddexp", "logaddexp2", "xlogy", "sinc", "float_power", "gcd", "lcm",
          "renorm", "trapezoid", "cumulative_trapezoid", "any", "all", "as_strided", "logit", "sgn", "signbit",
          "pdist", "frombuffer", "gradient")
_METHODS = ("tensor_split", "hsplit", "vsplit", "dsplit", "rot90", "take_along_dim", "diff", "cross",
            "count_nonzero", "nansum", "nanmean", "median", "nanmedian", "mode", "quantile", "nanquantile",
            "cov", "corrcoef", "histogram", "square", "square_", "true_divide", "deg2rad", "rad2deg", "ldexp",
            "isneginf", "isposinf", "isreal", "argwhere", "heaviside", "logaddexp", "logaddexp2", "xlogy",
            "sinc", "float_power", "float_power_", "gcd", "lcm", "renorm", "diagflat", "broadcast_to",
            "unflatten", "inner", "kron", "any", "all", "as_strided", "logit", "logit_", "sgn", "signbit")


def _forward_to(name, alias):
    # a Python method: some of the ops' own entries are builtins, which do
    # not bind as methods under another name
    def method(self, *args, **kwargs):
        return getattr(self, name)(*args, **kwargs)
    method.__name__ = alias
    return method


def _bind_polygamma():
    """torch.polygamma(n, x): n = 0 is digamma, n = 1 the op table's
    polygamma row (trigamma); higher orders are not modeled."""
    trigamma, trigamma_ = Tensor.polygamma, Tensor.polygamma_

    def pick(n, name):
        if n == 0:
            return name
        if n != 1:
            raise NotImplementedError("torch.polygamma(n=%d, ...) is not modeled by Tensorscope yet (n = 0 and 1 "
                                      "are)" % n)
        return None

    def polygamma(n, input, *, out=None):
        if n < 0:
            raise RuntimeError("polygamma(n, x) does not support negative n.")
        return input.digamma() if pick(n, "digamma") else trigamma(input)

    def method(self, n):
        return polygamma(n, self)

    def method_(self, n):
        if n < 0:
            raise RuntimeError("polygamma(n, x) does not support negative n.")
        return self.digamma_() if pick(n, "digamma") else trigamma_(self)

    torch.polygamma = polygamma
    Tensor.polygamma, Tensor.polygamma_ = method, method_


def _install_aliases():
    for alias, name in _ALIASES.items():
        for suffix in ("", "_"):
            if hasattr(Tensor, name + suffix) and not hasattr(Tensor, alias + suffix):
                setattr(Tensor, alias + suffix, _forward_to(name + suffix, alias + suffix))
        if hasattr(torch, name) and not hasattr(torch, alias):
            setattr(torch, alias, getattr(torch, name))
    Tensor.index_reduce_ = _index_reduce_
    for name in ("positive", "ravel", "narrow_copy", "fmax", "fmin", "frexp", "logcumsumexp", "index_reduce"):
        setattr(torch, name, globals()[name])
        setattr(Tensor, name, globals()[name])
    for name in ("deg2rad", "rad2deg", "sinc", "heaviside", "gcd", "lcm", "ldexp", "xlogy", "sgn", "renorm",
                 "true_divide", "logit"):
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _inplace_of(globals()[name]))
    Tensor.is_cpu = property(lambda self: self.device.type == "cpu")
    for flag in ("is_mkldnn", "is_mps", "is_xpu", "is_ipu", "is_vulkan", "is_ort", "is_nested", "is_sparse_csr"):
        setattr(Tensor, flag, property(lambda self: False))
    Tensor.is_neg = lambda self: False
    Tensor.resolve_neg = lambda self: self
    Tensor.adjoint = lambda self: self.transpose(-2, -1).conj() if self.is_complex() else self.transpose(-2, -1)
    Tensor.new_empty_strided = lambda self, size, stride, **kw: torch.empty_strided(
        size, stride, dtype=kw.get("dtype", self.dtype), device=kw.get("device", self.device))
    Tensor.unsafe_chunk, Tensor.unsafe_split = Tensor.chunk, Tensor.split
    Tensor.put = lambda self, index, source, accumulate=False: self.clone().put_(index, source, accumulate)
    Tensor.cauchy_, Tensor.geometric_ = _cauchy_, _geometric_
    Tensor.hardshrink = lambda self, lambd=0.5: torch.nn.functional.hardshrink(self, lambd)
    Tensor.prelu = lambda self, weight: torch.nn.functional.prelu(self, weight)
    torch.nn.functional.pdist = pdist
    for name in ("select_scatter", "slice_scatter", "diagonal_scatter"):
        setattr(torch, name, globals()[name])
        setattr(Tensor, name, globals()[name])
    Tensor.is_signed = lambda self: self.dtype.is_signed
    Tensor.is_same_size = lambda self, other: tuple(self.shape) == tuple(other.shape)
    if hasattr(torch, "complex64"):
        Tensor.cfloat = torch._conversion("cfloat", torch.complex64)
        Tensor.cdouble = torch._conversion("cdouble", torch.complex128)


# The functions here that take out= but compute without it: torch.<name>
# writes its result into out through torch._out's generic path (out= was
# silently ignored), with the number of outs and, where ATen checks out's
# dtype its own way, the policy (None: TensorIterator's casts; "bool":
# torch._out.bool_only; a message: out of the result's dtype only,
# torch._out.equal_dtype's)
_OUT_BY_COPY = {"deg2rad": (1, None), "rad2deg": (1, None), "ldexp": (1, None), "logaddexp": (1, None),
                "logaddexp2": (1, None), "xlogy": (1, None), "sinc": (1, None), "gcd": (1, None),
                "lcm": (1, None), "fmax": (1, None), "fmin": (1, None), "logit": (1, None),
                "polygamma": (1, None), "frexp": (2, None), "histogram": (2, None),
                "isneginf": (1, "bool"), "isposinf": (1, "bool"), "signbit": (1, "bool"),
                "heaviside": (1, "heaviside is not yet implemented for tensors with different dtypes."),
                "logcumsumexp": (1, "expected scalar_type {have} but found {out}"),
                "sgn": (1, "Found dtype {out} but expected {have}"),
                "quantile": (1, "quantile() out tensor must be same dtype as the input tensor"),
                "nanquantile": (1, "quantile() out tensor must be same dtype as the input tensor")}


def _install_out_by_copy():
    import torch._out
    for name, (n_out, policy) in _OUT_BY_COPY.items():
        if policy == "bool":
            policy = torch._out.bool_only
        elif isinstance(policy, str):
            policy = torch._out.equal_dtype(policy)
        setattr(torch, name, torch._out.wrap(name, getattr(torch, name), policy or torch._out.cast, n_out=n_out))


def _install():
    g = globals()
    torch._install_names(g, methods=_METHODS, functions=_TORCH)
    _install_aliases()
    _bind_polygamma()
    _install_out_by_copy()
    if not hasattr(torch.return_types, "frexp"):
        torch.return_types.frexp = _return_type_of("frexp", ("mantissa", "exponent"))
    torch.trapz = trapezoid
    Tensor.reshape_as = _reshape_as
    Tensor.unfold = _unfold
    Tensor.apply_ = _apply_
    Tensor.map_ = _map_
    for name, view in (("unsqueeze_", Tensor.unsqueeze), ("squeeze_", Tensor.squeeze), ("t_", Tensor.t),
                       ("transpose_", Tensor.transpose), ("swapdims_", Tensor.transpose),
                       ("swapaxes_", Tensor.transpose)):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _inplace_view(name, view))
    Tensor.ndimension = lambda self: self.dim()
    if not hasattr(Tensor, "nelement"):
        Tensor.nelement = lambda self: self.numel()
    Tensor.exponential_ = _exponential_
    Tensor.resize_as_ = _resize_as_
    Tensor.is_sparse = property(lambda self: False)
    Tensor.is_quantized = property(lambda self: False)
    Tensor.is_meta = property(lambda self: False)
    Tensor.to_dense = lambda self, dtype=None: self if dtype is None else self.to(dtype)
    Tensor.is_floating_point = lambda self: self.dtype.is_floating_point
    Tensor.is_complex = lambda self: self.dtype.is_complex
    Tensor.sum_to_size = _sum_to_size
    Tensor.fill_diagonal_ = _fill_diagonal_
    Tensor.mT = property(_mT)
    Tensor.mH = property(_mT)
    Tensor.H = property(_H)
    for name in ("median", "nanmedian", "mode", "histogram"):
        if not hasattr(torch.return_types, name):
            fields = ("hist", "bin_edges") if name == "histogram" else ("values", "indices")
            setattr(torch.return_types, name, _return_type_of(name, fields))


def _return_type_of(name, fields=("values", "indices")):
    from torch._reduce import _return_type as make
    return make(name, fields)
