# The tensor API people write (#14): where, lerp, addcmul, the statistics,
# norms, the BLAS-like products, einsum, the random factories and the
# counting ops. Most are compositions of the core's differentiable ops, so
# their values follow those ops' kernels and their gradients come free;
# their grad_fn is then the last op's node (AddBackward0 for where, ...),
# not PyTorch's fused node. The checks and messages are ATen's (PyTorch
# 1.13). The integer draws (randint, randperm) are the op table's
# RANDOM_FROM_TO and RANDPERM rows, PyTorch's CPU algorithms.

import builtins
import math
import struct as _struct
import warnings

import torch
from torch import Tensor
from torch import _unmodeled
from torch._reduce import _return_type
from torch._shape import _SCALAR_NAMES, _wrap_dim
from torch.amp.autocast_mode import autocast_policy

# -- dtypes of mixed operands ----------------------------------------------------


def _category(dt):
    return 2 if dt.is_floating_point else 0 if dt == torch.bool else 1


def _scalar_category(v):
    return 0 if isinstance(v, builtins.bool) else 1 if isinstance(v, builtins.int) else 2


def _result_type(*operands):
    """torch.result_type over tensors and Python numbers: dimensioned
    tensors first, then 0-dim ones, then numbers, each lower group counting
    only where its category (bool < int < float) is higher."""
    groups = ([], [], [])
    for v in operands:
        if isinstance(v, Tensor):
            groups[0 if v.dim() else 1].append(v.dtype)
        else:
            groups[2].append(v)
    result = None
    for i, group in enumerate(groups):
        if not group:
            continue
        if i == 2:
            cat = builtins.max(_scalar_category(v) for v in group)
            if result is None or cat > _category(result):
                result = (torch.bool, torch.int64, torch.get_default_dtype())[cat]
            continue
        dt = group[0]
        for other in group[1:]:
            dt = torch.promote_types(dt, other)
        if result is None or _category(dt) > _category(result):
            result = dt
    return result


def broadcast_shapes(*shapes):
    out = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for i, n in enumerate(reversed(shape)):
            if i == len(out):
                out.insert(0, n)
            elif out[-1 - i] == 1:
                out[-1 - i] = n
            elif n != 1 and n != out[-1 - i]:
                raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch "
                                   "is at original size %d, and new size %d" % (out[-1 - i], n))
    return torch.Size(out)


def _broadcast(shapes):
    """The broadcast shape, with TensorIterator's message."""
    out = []
    for shape in shapes:
        nd = builtins.max(len(out), len(shape))
        a = [1] * (nd - len(out)) + out
        b = [1] * (nd - len(shape)) + list(shape)
        for d in range(nd):
            if a[d] != b[d] and a[d] != 1 and b[d] != 1:
                raise RuntimeError("The size of tensor a (%d) must match the size of tensor b (%d) at "
                                   "non-singleton dimension %d" % (a[d], b[d], d))
            a[d] = b[d] if a[d] == 1 else a[d]
        out = a
    return torch.Size(out)


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


# The operands' dtype when all are dimensioned tensors of one dtype: the
# common case, with nothing to promote, wrap or move (a 0-dim CPU tensor
# would move), so the ops pass them to their kernel as they are; else None.
_plain_dtype = torch._C._plain_dtype


def _as_tensor_like(v, dtype, device):
    """A number as a 0-dim tensor of dtype on device; a tensor cast (a
    0-dim CPU one moved too, as PyTorch lets CPU scalars meet CUDA)."""
    if not isinstance(v, Tensor):
        return torch.tensor(v, dtype=dtype, device=device)
    if v.dtype is dtype and (v.dim() != 0 or v.device == device):
        return v    # the common case, without to()'s argument handling
    return v.to(device=device, dtype=dtype) if v.dim() == 0 else v.to(dtype)


# -- selection ----------------------------------------------------------------------


_warned_uint8 = []


def where(condition, input=None, other=None, *, out=None):
    """where(c, x, y): the WHERE row, one kernel over the broadcast
    operands (numbers become 0-dim tensors of the promoted dtype, as
    PyTorch wraps them), with its WhereBackward0 node."""
    if (out is None and isinstance(condition, Tensor) and condition.dtype is torch.bool and condition.dim()
            and _plain_dtype(input, other) is not None):
        # the kernel checks the broadcast with TensorIterator's message
        return torch._C._where(condition, input, other)
    if input is None and other is None:
        return torch.nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() missing required argument: 'other'")
    if out is not None:
        return torch._out.run("where", where, (condition, input, other), {}, out)
    if not isinstance(condition, Tensor) or condition.dtype not in (torch.bool, torch.uint8):
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype %s"
                           % (_SCALAR_NAMES[condition.dtype._name] if isinstance(condition, Tensor) else "?"))
    if condition.dtype == torch.uint8 and not _warned_uint8:
        # TORCH_WARN_ONCE
        _warned_uint8.append(True)
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed "
                      "in a future version of PyTorch. Use a boolean condition instead. (Triggered internally at  "
                      "./aten/src/ATen/native/TensorCompare.cpp:413.)", stacklevel=2)
    tensors = [t for t in (condition, input, other) if isinstance(t, Tensor)]
    # 0-dim CPU tensors go where the others are, as PyTorch's CPU scalars
    dev = next((t.device for t in tensors if t.is_cuda or t.dim()), condition.device)
    dt = _result_type(input, other)
    _broadcast([t.shape for t in tensors])
    return torch._C._where(_as_tensor_like(condition, torch.bool, dev), _as_tensor_like(input, dt, dev),
                           _as_tensor_like(other, dt, dev))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """NaN, +inf and -inf replaced (by default with 0 and the dtype's
    largest and lowest finite values): masked fills, whose gradient is 0
    at the replaced elements as nan_to_num's is."""
    if out is not None:
        raise _unmodeled.unsupported("torch.nan_to_num(..., out=...)")
    if not input.dtype.is_floating_point:
        return input.clone()
    big = torch.finfo(input.dtype).max
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    return (input.masked_fill(input.isnan(), nan).masked_fill(input == math.inf, posinf)
            .masked_fill(input == -math.inf, neginf))


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    return input.copy_(nan_to_num(input, nan, posinf, neginf))


class finfo:
    _TABLE = {
        "float32": (3.4028234663852886e+38, 1.1920928955078125e-07, 1.1754943508222875e-38, 6, 32),
        "float64": (1.7976931348623157e+308, 2.220446049250313e-16, 2.2250738585072014e-308, 15, 64),
        "float16": (65504.0, 0.0009765625, 6.103515625e-05, 3, 16),
        "bfloat16": (3.3895313892515355e+38, 0.0078125, 1.1754943508222875e-38, 2, 16),
    }

    def __init__(self, type=None):
        type = type or torch.get_default_dtype()
        if type._name not in self._TABLE:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        self.max, self.eps, self.tiny, self.resolution_digits, self.bits = self._TABLE[type._name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -self.resolution_digits
        self.dtype = type._name


class iinfo:
    def __init__(self, type):
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        self.bits = type.itemsize * 8
        if type == torch.bool or type == torch.uint8:
            self.min, self.max = 0, 1 if type == torch.bool else 255
        else:
            self.min, self.max = -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        self.dtype = type._name


# -- pointwise -------------------------------------------------------------------------


# c10's TypeMeta names, as lerp's dtype checks print them
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _device_of(*operands):
    """Where an op of these runs: the first CUDA or dimensioned tensor's
    device (0-dim CPU tensors go along, as PyTorch's CPU scalars)."""
    tensors = [t for t in operands if isinstance(t, Tensor)]
    return next((t.device for t in tensors if t.is_cuda or t.dim()), tensors[0].device)


_LERP_FAST_DTYPES = (torch.float32, torch.float64)


def lerp(input, end, weight, *, out=None):
    """The LERP row: one kernel with PyTorch's rounding (its CPU loop
    fuses w * (end - self) + self into one multiply-add)."""
    if out is None and not isinstance(weight, Tensor) and _plain_dtype(input, end) in _LERP_FAST_DTYPES:
        # the common case (tensors of one floating dtype, a number weight),
        # which the checks below would pass unchanged
        return torch._C._ternary("lerp", input, end, None, builtins.float(weight))
    if out is not None:
        return torch._out.run("lerp", lerp, (input, end, weight), {}, out)
    checks = (("end", end),) + ((("weight", weight),) if isinstance(weight, Tensor) else ())
    for name, t in checks:
        if t.dtype != input.dtype:
            raise RuntimeError("expected dtype %s for `%s` but got dtype %s"
                               % (_CPP_NAMES[input.dtype._name], name, _CPP_NAMES[t.dtype._name]))
    kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
    if not input.dtype.is_floating_point or (not input.is_cuda and input.dtype == torch.float16):
        raise RuntimeError("\"%s\" not implemented for '%s'" % (kernel, _SCALAR_NAMES[input.dtype._name]))
    dev = _device_of(input, end, weight)
    dt = input.dtype
    if isinstance(weight, Tensor):
        return torch._C._ternary("lerp", _as_tensor_like(input, dt, dev), _as_tensor_like(end, dt, dev),
                                 _as_tensor_like(weight, dt, dev), 0.0)
    return torch._C._ternary("lerp", _as_tensor_like(input, dt, dev), _as_tensor_like(end, dt, dev), None,
                             builtins.float(weight))


def _inplace_kernel(self, *operands):
    """Whether lerp_/addcmul_/addcdiv_ can write self in one kernel: no
    gradient to record, operands of self's dtype and device that
    broadcast to self's shape. Otherwise the result is computed, then
    copied in (two kernels, PyTorch's values and history). A plain loop:
    an optimizer step asks this for every parameter."""
    grad = torch._C.is_grad_enabled()
    if grad and self.requires_grad:
        return False
    # a tensor's dtype and device objects are one object per value
    dt, dev, shape = self.dtype, self.device, self._shape
    same_shape = True
    for t in operands:
        if isinstance(t, Tensor):
            if (grad and t.requires_grad) or t.dtype is not dt or t.device is not dev:
                return False
            same_shape = same_shape and t._shape == shape
    if same_shape:
        return True
    tensors = [self] + [t for t in operands if isinstance(t, Tensor)]
    return _broadcast([t.shape for t in tensors]) == self.shape


def lerp_(input, end, weight):
    if _inplace_kernel(input, end, weight) and input.dtype.is_floating_point:
        w = weight if isinstance(weight, Tensor) else None
        torch._C._ternary("lerp", input, end, w, 0.0 if w is not None else builtins.float(weight), True)
        return input
    return input.copy_(lerp(input, end, weight))


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """The ADDCMUL row: self + value * tensor1 * tensor2 in one kernel, the
    multiply-add fused as PyTorch's CPU loop does."""
    dt = _plain_dtype(input, tensor1, tensor2)
    if out is None and dt is not None and dt is not torch.bool and dt is not torch.float16:
        return torch._C._ternary("addcmul", input, tensor1, tensor2, builtins.float(value))
    if out is not None:
        return torch._out.run("addcmul", addcmul, (input, tensor1, tensor2), {"value": value}, out)
    dt = _result_type(input, tensor1, tensor2)
    dev = _device_of(input, tensor1, tensor2)
    if dt == torch.bool or (dev.type == "cpu" and dt == torch.float16):
        raise RuntimeError("\"addcmul_cpu_out\" not implemented for '%s'" % _SCALAR_NAMES[dt._name])
    return torch._C._ternary("addcmul", _as_tensor_like(input, dt, dev), _as_tensor_like(tensor1, dt, dev),
                             _as_tensor_like(tensor2, dt, dev), builtins.float(value))


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """The ADDCDIV row: self + value * tensor1 / tensor2 in one kernel."""
    if out is not None:
        return torch._out.run("addcdiv", addcdiv, (input, tensor1, tensor2), {"value": value}, out)
    if not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release "
                           "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                           "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                           "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                           "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    dt = _result_type(input, tensor1, tensor2)
    dev = _device_of(input, tensor1, tensor2)
    return torch._C._ternary("addcdiv", _as_tensor_like(input, dt, dev), _as_tensor_like(tensor1, dt, dev),
                             _as_tensor_like(tensor2, dt, dev), builtins.float(value))


def addcmul_(input, tensor1, tensor2, *, value=1):
    if _inplace_kernel(input, tensor1, tensor2) and input.dtype not in (torch.bool, torch.float16):
        torch._C._ternary("addcmul", input, tensor1, tensor2, builtins.float(value), True)
        return input
    return input.copy_(addcmul(input, tensor1, tensor2, value=value))


def addcdiv_(input, tensor1, tensor2, *, value=1):
    if _inplace_kernel(input, tensor1, tensor2) and input.dtype.is_floating_point:
        torch._C._ternary("addcdiv", input, tensor1, tensor2, builtins.float(value), True)
        return input
    return input.copy_(addcdiv(input, tensor1, tensor2, value=value))


_round_op = torch._C.TensorBase.round


def round(input, *, decimals=0, out=None):
    """round(decimals=d): ATen scales by 10^d (a scalar of the input's
    dtype), rounds half to even and scales back; d < 0 divides first."""
    if decimals == 0:
        return _round_op(input) if out is None else _round_op(input, out=out)
    if out is not None:
        raise _unmodeled.unsupported("torch.round(..., decimals=, out=...)")
    if decimals > 0:
        scale = 10.0 ** decimals
        return _round_op(input * scale) / scale
    scale = 10.0 ** -decimals
    return _round_op(input / scale) * scale


def round_(input, *, decimals=0):
    return input.copy_(round(input, decimals=decimals))


@autocast_policy(cuda="fp32")
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(x - m))) + m with m the detached amax (0 where
    infinite): its gradient is softmax(x), logsumexp's."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not input.dtype.is_floating_point:
        input = input.to(torch.get_default_dtype())
    if input.numel() == 0:
        return input.exp().sum(dims, keepdim).log()
    with torch.no_grad():
        m = input.amax(dims, keepdim=True)
        m = m.masked_fill(m.abs() == math.inf, 0)
    r = (input - m).exp().sum(dims, keepdim=True).log() + m
    return r if keepdim else _squeeze_dims(r, dims)


def _squeeze_dims(t, dims):
    drop = {_wrap_dim(d, t.dim()) for d in dims}
    return t.reshape([n for d, n in enumerate(t.shape) if d not in drop])


# -- statistics ----------------------------------------------------------------------


def _var_args(name, dim, unbiased, keepdim, correction):
    if isinstance(dim, builtins.bool):
        # var(input, unbiased) is the legacy positional form
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased in (None, True) else 0
    elif unbiased is not None:
        raise RuntimeError("%s: cannot specify both unbiased and correction" % name)
    return dim, keepdim, correction


def _var(input, dim, keepdim, correction, name):
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = tuple(range(input.dim())) if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    n = 1
    for d in dims:
        n *= input.shape[_wrap_dim(d, input.dim())] if input.dim() else 1
    # PyTorch accumulates float32 (and the half types) in double (Welford
    # over dims, two passes over all) and rounds once: so do these, in
    # float64, then back to the input's dtype
    x = input.double() if input.dtype != torch.float64 else input
    mean = x.mean(dims, keepdim=True) if dims else x
    diff = x - mean
    square = diff * diff
    if not dims:
        var = square / builtins.max(0, n - correction)
    elif correction:
        var = square.sum(dims, keepdim=keepdim) / builtins.max(0, n - correction)
    else:
        var = square.mean(dims, keepdim=keepdim)    # the same double sum over n: one launch, not two
    var = (var.sqrt() if name.startswith("std") else var).to(input.dtype)
    if not name.endswith("_mean"):
        return var, None    # var and std: no mean to convert (a launch saved)
    mean = mean if keepdim or not dims else _squeeze_dims(mean, dims)
    return var, mean.to(input.dtype)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    dim, keepdim, correction = _var_args("var", dim, unbiased, keepdim, correction)
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    # one launch and VarBackward0, as PyTorch's
    dims = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    return torch._C._var(input, dims, builtins.float(correction), keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    dim, keepdim, correction = _var_args("std", dim, unbiased, keepdim, correction)
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    # one launch and StdBackward0, as PyTorch's (var's kernel, its square
    # root taken in double before the one rounding)
    dims = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    return torch._C._var(input, dims, builtins.float(correction), keepdim, True)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, keepdim, correction = _var_args("var_mean", dim, unbiased, keepdim, correction)
    return _var(input, dim, keepdim, correction, "var_mean")


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, keepdim, correction = _var_args("std_mean", dim, unbiased, keepdim, correction)
    return _var(input, dim, keepdim, correction, "std_mean")


# -- products ------------------------------------------------------------------------------


def _check_dim(t, n, what):
    if t.dim() != n:
        raise RuntimeError("%s must be a %s" % (what, "matrix" if n == 2 else "vector" if n == 1 else
                                                 "%dD tensor" % n))


def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product, as BLAS writes C = alpha AB + beta C:
    beta 0 ignores input (NaN included), factors of 1 are skipped."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return (input if beta == 1 else input * beta) + product


@autocast_policy(cuda="lower", cpu="lower")
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    if out is not None:
        raise _unmodeled.unsupported("torch.addmm(..., out=...)")
    _check_dim(mat1, 2, "mat1")
    _check_dim(mat2, 2, "mat2")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)"
                           % (mat1.shape[0], mat1.shape[1], mat2.shape[0], mat2.shape[1]))
    if mat1.dtype.is_floating_point:
        # one launch and AddmmBackward0, as PyTorch's
        return torch._C._addmm(input, mat1, mat2, float(beta), float(alpha))
    return _scaled_sum(input, mat1 @ mat2, beta, alpha)


@autocast_policy(cuda="lower")
def mv(input, vec, *, out=None):
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError("vector + matrix @ vector expected, got 1, %d, %d" % (input.dim(), vec.dim()))
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError("size mismatch, got %d, %dx%d,%d"
                           % (input.shape[0], input.shape[0], input.shape[1], vec.shape[0]))
    if input.dtype != vec.dtype:
        raise RuntimeError("expected scalar type %s but found %s"
                           % (_SCALAR_NAMES[input.dtype._name], _SCALAR_NAMES[vec.dtype._name]))
    if not input.is_cuda and input.dtype == torch.float16:
        raise RuntimeError("\"addmv_impl_cpu\" not implemented for 'Half'")
    # the MV row: BLAS gemv, PyTorch's sums (mm with one column differs)
    return torch._C._mv(input, vec)


@autocast_policy(cuda="lower")
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


@autocast_policy(cuda="promote")
def dot(input, other, *, out=None):
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError("1D tensors expected, but got %dD and %dD tensors" % (input.dim(), other.dim()))
    if input.dtype != other.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found %s and %s"
                           % (_SCALAR_NAMES[input.dtype._name], _SCALAR_NAMES[other.dtype._name]))
    if input.shape[0] != other.shape[0]:
        raise RuntimeError("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same "
                           "number of elements, but got %d and %d elements respectively"
                           % (input.shape[0], other.shape[0], input.shape[0], other.shape[0]))
    return (input.unsqueeze(0) @ other.unsqueeze(1)).reshape(())


vdot = dot  # real dtypes only: conj() is the identity


def outer(input, vec2):
    """ATen's own composition: self.reshape({n, 1}) * vec2."""
    if input.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError("outer: Expected 1-D argument self, but got %d-D" % input.dim()
                           if input.dim() != 1 else "outer: Expected 1-D argument vec2, but got %d-D" % vec2.dim())
    return input.reshape(-1, 1) * vec2


ger = outer


@autocast_policy(cuda="lower")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    return _scaled_sum(input, outer(vec1, vec2), beta, alpha)


def _check_batches(batch1, batch2):
    for t in (batch1, batch2):
        if t.dim() < 3:
            raise IndexError("Dimension out of range (expected to be in range of [-%d, %d], but got 2)"
                             % (builtins.max(t.dim(), 1), builtins.max(t.dim(), 1) - 1))


@autocast_policy(cuda="lower", cpu="lower")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    _check_batches(batch1, batch2)
    if out is not None:
        raise _unmodeled.unsupported("torch.baddbmm(..., out=...)")
    prod = torch.bmm(batch1, batch2)
    return _scaled_sum(input, prod, beta, alpha)


@autocast_policy(cuda="lower", cpu="lower")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    _check_batches(batch1, batch2)
    if out is not None:
        raise _unmodeled.unsupported("torch.addbmm(..., out=...)")
    prod = torch.bmm(batch1, batch2).sum(0)
    return _scaled_sum(input, prod, beta, alpha)


def _inplace(fn):
    def f(input, *args, **kwargs):
        return input.copy_(fn(input, *args, **kwargs))
    f.__name__ = fn.__name__ + "_"
    return f


# -- diagonals ---------------------------------------------------------------------------


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of dims dim1 and dim2 as a new last dim. A copy
    (index_select over the flattened pair), not PyTorch's view: writes to
    it do not reach input."""
    nd = input.dim()
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError("diagonal dimensions cannot be identical %d, %d" % (dim1, dim2))
    x = input.movedim((d1, d2), (-2, -1))
    rows, cols = x.shape[-2], x.shape[-1]
    if offset >= 0:
        n = builtins.max(0, builtins.min(rows, cols - offset))
        start = offset
    else:
        n = builtins.max(0, builtins.min(rows + offset, cols))
        start = -offset * cols
    flat = x.reshape(tuple(x.shape[:-2]) + (rows * cols,))
    idx = torch.arange(n, device=input.device) * (cols + 1) + start
    return flat.index_select(-1, idx)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """input's last dim laid on the offset diagonal of two new dims: the
    values gathered onto an (n, n) grid, masked off the diagonal."""
    length = input.shape[-1]
    n = length + builtins.abs(offset)
    r = torch.arange(n, device=input.device)
    vals = input.index_select(-1, r.clamp(max=builtins.max(length - 1, 0)))
    # element (i, j) of the diagonal holds input[i] above it, input[j] below
    grid = vals.unsqueeze(-1) if offset >= 0 else vals.unsqueeze(-2)
    grid = grid.expand(*vals.shape[:-1], n, n)
    out = grid.masked_fill((r.unsqueeze(1) + offset == r).logical_not(), 0)
    nd = out.dim()
    return out.movedim((nd - 2, nd - 1), (_wrap_dim(dim1, nd), _wrap_dim(dim2, nd)))


def diag(input, diagonal_=0, *, out=None, **kwargs):
    offset = kwargs.pop("diagonal", diagonal_)
    if input.dim() == 1:
        return diag_embed(input, offset)
    if input.dim() == 2:
        return diagonal(input, offset)
    raise RuntimeError("matrix or a vector expected")


def trace(input):
    if input.dim() != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim %d" % input.dim())
    d = diagonal(input)
    return d.sum() if input.dtype.is_floating_point else d.sum(dtype=torch.int64)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
    if out is not None:
        raise _unmodeled.unsupported("torch.eye(..., out=...)")
    if n < 0:
        raise RuntimeError("n must be greater or equal to 0, got %d" % n)
    m = n if m is None else m
    if m < 0:
        raise RuntimeError("m must be greater or equal to 0, got %d" % m)
    dev = torch._factory_device(device)
    r = torch.arange(n, device=dev).unsqueeze(1) == torch.arange(m, device=dev)
    r = r.to(dtype or torch.get_default_dtype())
    return r.requires_grad_() if requires_grad else r


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    if out is not None:
        raise _unmodeled.unsupported("torch.logspace(..., out=...)")
    dt = dtype or torch.get_default_dtype()
    exps = torch.linspace(start, end, steps, dtype=torch.float64, device=device)
    r = (torch.full((steps,), float(base), dtype=torch.float64, device=device) ** exps).to(dt)
    return r.requires_grad_() if requires_grad else r


# -- norms ---------------------------------------------------------------------------------


def _dims_or_all(x, dim):
    if dim is None:
        return tuple(range(x.dim()))
    return (dim,) if isinstance(dim, int) else tuple(dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """sum(|x|^ord)^(1/ord), with ATen's special cases: inf and -inf are
    amax and amin of |x|, 0 counts the nonzeros, 1 and 2 skip the powers."""
    if out is not None:
        raise _unmodeled.unsupported("torch.linalg.vector_norm(..., out=...)")
    if dtype is not None:
        x = x.to(dtype)
    if not x.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s"
                           % _SCALAR_NAMES[x.dtype._name])
    dims = _dims_or_all(x, dim)
    a = x.abs()
    if ord == math.inf:
        if x.numel() == 0:
            raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor because "
                               "the operation does not have an identity")
        return a.amax(dims, keepdim)
    if ord == -math.inf:
        if x.numel() == 0:
            raise RuntimeError("linalg.vector_norm cannot compute the -inf norm on an empty tensor because "
                               "the operation does not have an identity")
        return a.amin(dims, keepdim)
    if ord == 0:
        return (x != 0).to(x.dtype).sum(dims, keepdim)
    if ord == 1:
        return a.sum(dims, keepdim)
    if ord == 2:
        return (x * x).sum(dims, keepdim).sqrt()
    return (a ** ord).sum(dims, keepdim) ** (1.0 / ord)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    if out is not None:
        raise _unmodeled.unsupported("torch.linalg.matrix_norm(..., out=...)")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if ord == "fro":
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if ord == "nuc" or ord in (2, -2):
        return _singular_norm(A, ord, dim, keepdim, dtype)
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError("linalg.matrix_norm: Order %s not supported." % ord)
    d0, d1 = (_wrap_dim(d, A.dim()) for d in dim)
    if ord in (math.inf, -math.inf):
        d0, d1 = d1, d0
    # the max (min) over d1 of the column sums over d0
    sums = vector_norm(A, 1, d0, True, dtype=dtype)
    r = sums.amax(d1, True) if ord > 0 else sums.amin(d1, True)
    return r if keepdim else r.squeeze(builtins.max(d0, d1)).squeeze(builtins.min(d0, d1))


def _singular_norm(A, ord, dim, keepdim, dtype):
    """ATen's matrix_norm for 'nuc', 2 and -2: the two dims moved last, then
    the sum, the largest or the smallest of the singular values."""
    d0, d1 = (_wrap_dim(d, A.dim()) for d in dim)
    if d0 == d1:
        raise RuntimeError("linalg.matrix_norm: dims must be different. Got (%d, %d)" % tuple(dim))
    if dtype is not None:
        A = A.to(dtype)
    perm = [d for d in range(A.dim()) if d not in (d0, d1)] + [d0, d1]
    S = torch.linalg.svdvals(A.permute(perm))
    r = S.sum(-1) if ord == "nuc" else S.amax(-1) if ord == 2 else S.amin(-1)
    if keepdim:
        r = r.unsqueeze(builtins.min(d0, d1)).unsqueeze(builtins.max(d0, d1))
    return r


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    if out is not None:
        # it was silently ignored
        import torch._out
        return torch._out.run("linalg.norm", lambda a: linalg_norm(a, ord, dim, keepdim, dtype=dtype), (A,), {}, out,
                              torch._out.equal_dtype("linalg.norm expected out tensor dtype {have} but got: {out}"))
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A if dim is not None else A.reshape(-1), 2, dim or 0, keepdim, dtype=dtype) \
            if dim is not None or not keepdim else vector_norm(A, 2, None, keepdim, dtype=dtype)
    if dim is None:
        dim = tuple(range(A.dim()))
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError("linalg.norm: If dim is specified, it mut be of length 1 or 2. Got %r" % (dim,))
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


@autocast_policy(cuda="fp32")
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: 'fro' over a dim list of two is the matrix Frobenius
    norm, which is the 2-norm of the elements; 'nuc' needs an SVD."""
    if out is not None:
        raise _unmodeled.unsupported("torch.norm(..., out=...)")
    if p == "nuc":
        if dim is None and input.dim() != 2:
            raise RuntimeError("Expected a tensor with 2 dimensions, but got a tensor with %d dimension%s instead."
                               % (input.dim(), "" if input.dim() == 1 else "s"))
        return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if p == "fro" or p is None:
        p = 2
    if p == 2 and dtype is None and input.dtype in _NORM_DTYPES and input.is_contiguous():
        # one launch (the NORM row) where the dims are ints
        dims = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
        if all(isinstance(d, int) for d in dims):
            return torch._C._reduce("norm", input, dims, keepdim, None)
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


_NORM_DTYPES = (torch.float32, torch.float64)


@autocast_policy(cuda="fp32")
def dist(input, other, p=2):
    return vector_norm(input - other, p)


# -- distances (torch.nn.functional) ------------------------------------------------------


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """PyTorch's own composition: input / norm.clamp_min(eps).expand_as."""
    denom = vector_norm(input, p, dim, True).clamp_min(eps).expand_as(input)
    if out is not None:
        return torch.div(input, denom, out=out)
    return input / denom


@autocast_policy(cuda="fp32")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """ATen 1.13's composition (scipy's, for precision): each input over
    its norm clamped at eps, then the sum of the products."""
    n1 = x1.pow(2).sum(dim, keepdim=True).clamp_min(eps * eps).sqrt()
    n2 = x2.pow(2).sum(dim, keepdim=True).clamp_min(eps * eps).sqrt()
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    out_dim = builtins.max(x1.dim(), x2.dim())
    inner = -1 if out_dim else 0
    return vector_norm(x1 - x2 + eps, p, inner, keepdim)


@autocast_policy(cuda="fp32", cpu="fp32")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The pairwise p-norm distances over the last dim; p=2 through the
    difference, not ATen's matmul expansion (which it takes beyond 25
    rows: its rounding differs in the last bits)."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError("cdist only supports at least 2D tensors, X1 got: %dD" % x1.dim()
                           if x1.dim() < 2 else "cdist only supports at least 2D tensors, X2 got: %dD" % x2.dim())
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: %d X2: %d"
                           % (x1.shape[-1], x2.shape[-1]))
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return vector_norm(diff, p, -1)


# -- einsum -------------------------------------------------------------------------------


def _einsum_parse(equation, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation"
                           if len(operands) > len(terms) else
                           "einsum(): fewer operands were provided than specified in the equation")
    ell_rank = 0
    parsed = []
    for term, t in zip(terms, operands):
        n_ell = t.dim() - len(term.replace("...", ""))
        if "..." in term:
            ell_rank = builtins.max(ell_rank, n_ell)
        elif n_ell != 0:
            raise RuntimeError("einsum(): the number of subscripts in the equation (%d) does not match the "
                               "number of dimensions (%d) for operand %d%s"
                               % (len(term), t.dim(), len(parsed),
                                  " and no ellipsis was given" if True else ""))
        parsed.append(term)
    # ellipsis dims become the labels 0..ell_rank-1 (ints), right-aligned
    labels = []
    for term, t in zip(parsed, operands):
        n_ell = t.dim() - len(term.replace("...", ""))
        pre, _, post = term.partition("...") if "..." in term else (term, None, "")
        ell = list(range(ell_rank - n_ell, ell_rank)) if "..." in term else []
        labels.append(list(pre) + ell + list(post))
    if arrow:
        if "..." in rhs:
            pre, _, post = rhs.partition("...")
            out = list(pre) + list(range(ell_rank)) + list(post)
        else:
            out = list(rhs)
    else:
        counts = {}
        for ls in labels:
            for lab in ls:
                if isinstance(lab, str):
                    counts[lab] = counts.get(lab, 0) + 1
        out = list(range(ell_rank)) + sorted(lab for lab, c in counts.items() if c == 1)
    return labels, out


def _einsum_diagonals(t, labels):
    """A label repeated within one operand takes that operand's diagonal."""
    while True:
        for i, lab in enumerate(labels):
            j = labels.index(lab, i + 1) if labels.count(lab) > 1 else -1
            if j > 0:
                t = diagonal(t, 0, i, j)
                labels = [lb for k, lb in enumerate(labels) if k not in (i, j)] + [lab]
                break
        else:
            return t, labels


def _einsum_sum_out(t, labels, keep):
    drop = [i for i, lab in enumerate(labels) if lab not in keep]
    if drop:
        t = t.sum(tuple(drop))
        labels = [lab for i, lab in enumerate(labels) if i not in drop]
    return t, labels


def _einsum_pair_plan(la, sa, lb, sb, keep, quiet=False):
    """Contract two operands (labels la, lb; shapes sa, sb) over their
    shared labels that nothing later needs: permute to (batch, free_a,
    sum) @ (batch, sum, free_b), one bmm (mm without a batch), then back
    to labels batch + free_a + free_b. Returns the view arguments
    (_einsum_pair_run's plan) and those labels; shapes alone decide them.
    quiet (no graph recorded): views that would change nothing are left
    out; with a graph each one records its node, as it always has."""
    sizes = {}
    for shape, ls in ((sa, la), (sb, lb)):
        for i, lab in enumerate(ls):
            sizes[lab] = builtins.max(sizes.get(lab, 1), shape[i])
    batch = [lab for lab in la if lab in lb and lab in keep]
    summed = [lab for lab in la if lab in lb and lab not in keep]
    free_a = [lab for lab in la if lab not in lb]
    free_b = [lab for lab in lb if lab not in la]

    def prod(order):
        n = 1
        for lab in order:
            n *= sizes[lab]
        return n

    def arrange(ls, shape, order, matrix):
        """The permute, expand and reshape that bring an operand to its
        (batch, rows, cols) form; quiet, None for each that would not
        change the view (the same values, no copy)"""
        perm = [ls.index(lab) for lab in order] if ls else None
        expanded = [sizes[lab] for lab in order]
        target = list(matrix)
        if not quiet:
            return perm, expanded, target
        if perm is not None and perm == list(range(len(perm))):
            perm = None
        permuted = [shape[i] for i in perm] if perm is not None else list(shape)
        return (perm, expanded if expanded != permuted else None,
                target if target != expanded else None)

    order = batch + free_a + free_b
    plan = (arrange(la, sa, batch + free_a + summed, (prod(batch), prod(free_a), prod(summed))),
            arrange(lb, sb, batch + summed + free_b, (prod(batch), prod(summed), prod(free_b))),
            prod(batch) == 1, [sizes[lab] for lab in order])
    return plan, order


def _einsum_view(t, view):
    perm, expanded, target = view
    if perm is not None:
        t = t.permute(perm)
    if expanded is not None:
        t = t.expand(expanded)
    return t.reshape(target) if target is not None else t


def _einsum_pair_run(a, b, plan):
    va, vb, single, shape = plan
    ta, tb = _einsum_view(a, va), _einsum_view(b, vb)
    r = (ta[0] @ tb[0]).unsqueeze(0) if single else torch.bmm(ta, tb)
    return r.reshape(shape)


def _einsum_pair(a, la, b, lb, keep):
    plan, order = _einsum_pair_plan(la, a.shape, lb, b.shape, keep)
    return _einsum_pair_run(a, b, plan), order


def _einsum_plan2(equation, a, b, quiet):
    """The general path's steps for two operands without a repeated label
    in either (no diagonals): labels only one operand has summed first,
    one pair contraction, a permute to the output; None for other
    equations. Only the equation and the shapes decide them."""
    (la, lb), out = _einsum_parse(equation, (a, b))
    if len(set(la)) != len(la) or len(set(lb)) != len(lb):
        return None
    keep_a = set(out) | set(lb)
    drop_a = tuple(i for i, lab in enumerate(la) if lab not in keep_a)
    la2 = [lab for lab in la if lab in keep_a]
    keep_b = set(out) | set(la2)
    drop_b = tuple(i for i, lab in enumerate(lb) if lab not in keep_b)
    lb2 = [lab for lab in lb if lab in keep_b]
    sa = [n for i, n in enumerate(a.shape) if i not in drop_a]
    sb = [n for i, n in enumerate(b.shape) if i not in drop_b]
    pair, order = _einsum_pair_plan(la2, sa, lb2, sb, set(out), quiet)
    final = [order.index(lab) for lab in out] if order != out else None
    return drop_a, drop_b, pair, final


# (equation, shape, shape, quiet) -> _einsum_plan2's steps, or None: a
# loop's einsum parses its equation once
_einsum_plans = {}


def _einsum2(equation, a, b):
    quiet = not (torch.is_grad_enabled() and (a.requires_grad or b.requires_grad))
    key = (equation, a._shape, b._shape, quiet)
    plan = _einsum_plans.get(key, False)
    if plan is False:
        plan = _einsum_plan2(equation, a, b, quiet)
        if len(_einsum_plans) >= 256:
            _einsum_plans.clear()
        _einsum_plans[key] = plan
    if plan is None:
        return None
    drop_a, drop_b, pair, final = plan
    r = _einsum_pair_run(a.sum(drop_a) if drop_a else a, b.sum(drop_b) if drop_b else b, pair)
    return r.permute(final) if final is not None else r


def einsum(equation, *operands):
    """General einsum over the differentiable core ops: diagonals for
    repeated labels, sums for labels only one operand has, then pairwise
    contractions left to right (bmm), then a permute to the output."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    if len(operands) == 2 and isinstance(operands[0], Tensor) and isinstance(operands[1], Tensor) and \
            isinstance(equation, str):
        r = _einsum2(equation, operands[0], operands[1])
        if r is not None:
            return r
    labels, out = _einsum_parse(equation, operands)
    ts = []
    for t, ls in zip(operands, labels):
        ts.append(_einsum_diagonals(t, ls))
    for i in range(len(ts)):
        later = set(out)
        for j, (_, ls) in enumerate(ts):
            if j != i:
                later.update(ls)
        ts[i] = _einsum_sum_out(ts[i][0], ts[i][1], later)
    t, ls = ts[0]
    for k in range(1, len(ts)):
        keep = set(out)
        for _, lr in ts[k + 1:]:
            keep.update(lr)
        b, lb = ts[k]
        t, ls = _einsum_sum_out(t, ls, keep | set(lb))
        t, ls = _einsum_pair(t, ls, b, lb, keep)
    t, ls = _einsum_sum_out(t, ls, set(out))
    if ls != out:
        t = t.permute([ls.index(lab) for lab in out])
    return t


# -- random ---------------------------------------------------------------------------------


def _gen_id(generator):
    return -1 if generator is None else generator._cpu_id


def _size_arg(size):
    return tuple(size) if isinstance(size, (list, tuple, torch.Size)) else (size,)


def _random_from_to(t, low, high, generator):
    """random_(low, high) on CPU: the RANDOM_FROM_TO row (PyTorch's
    random_from_to kernel). A CUDA tensor's are floor(low + u * range) of
    float64 Philox uniforms: in range, reproducible, not PyTorch's values
    (its CUDA kernel takes the raw Philox words)."""
    if high <= low:
        raise RuntimeError("random_ expects 'from' to be less than 'to', but got from=%d >= to=%d" % (low, high))
    if t.is_cuda:
        u = torch.empty(t.shape, dtype=torch.float64, device=t.device).uniform_(0, 1, generator=generator)
        return t.copy_((u * (high - low) + low).floor())
    torch._C._random_int_("random_", t, low, high - low, _gen_id(generator))
    return t


_FLOAT_DIGITS = {"float32": 24, "float64": 53, "float16": 11, "bfloat16": 8}


def _random_top(dt):
    """random_()'s exclusive bound: 2^digits + 1 for floats (integers up
    to 2^digits), the largest value + 1 for integer types."""
    if dt.is_floating_point:
        return (1 << _FLOAT_DIGITS[dt._name]) + 1
    return iinfo(dt).max + 1


def random_(self, *args, generator=None, **kwargs):
    if "from" in kwargs:
        args = (kwargs.pop("from"),) + args
    if "to" in kwargs:
        args = args + (kwargs.pop("to"),)
    if len(args) == 0:
        return _random_from_to(self, 0, _random_top(self.dtype), generator)
    if len(args) == 1:
        return _random_from_to(self, 0, args[0], generator)
    low, high = args
    return _random_from_to(self, low, _random_top(self.dtype) if high is None else high, generator)


def randint(*args, low=None, high=None, size=None, generator=None, dtype=None, device=None, requires_grad=False,
            out=None, layout=None, pin_memory=False):
    if out is not None:
        raise _unmodeled.unsupported("torch.randint(..., out=...)")
    args = list(args)
    if size is None:
        size = args.pop()
    # randint(high, size), randint(low, high, size), and their keyword forms
    if high is None:
        high = args.pop()
    if low is None:
        low = args.pop() if args else 0
    t = torch.empty(_size_arg(size), dtype=dtype or torch.int64, device=device)
    return _random_from_to(t, low, high, generator)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, generator=None, **kwargs):
    if high is None:
        low, high = 0, low
    t = torch.empty_like(input, dtype=dtype, device=device)
    return _random_from_to(t, low, high, generator)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, generator=None, **kwargs):
    t = torch.empty_like(input, dtype=dtype, device=device).uniform_(0, 1, generator=generator)
    return t.requires_grad_() if requires_grad else t


def randn_like(input, *, dtype=None, device=None, requires_grad=False, generator=None, **kwargs):
    t = torch.empty_like(input, dtype=dtype, device=device).normal_(0, 1, generator=generator)
    return t.requires_grad_() if requires_grad else t


def randperm(n, *, generator=None, dtype=torch.int64, device=None, requires_grad=False, out=None,
             layout=None, pin_memory=False):
    """PyTorch 1.13's CPU randperm: a Fisher-Yates shuffle, one 32-bit draw
    per step (the RANDPERM row). On CUDA: the CPU algorithm seeded by a
    float64 draw of the device's generator, moved to the device;
    PyTorch's CUDA values differ."""
    if out is not None:
        raise _unmodeled.unsupported("torch.randperm(..., out=...)")
    if n < 0:
        raise RuntimeError("Trying to create tensor with negative dimension %d: [%d]" % (n, n))
    dev = torch._factory_device(device)
    t = torch.empty(n, dtype=dtype)
    if dev is not None and torch.device(dev).type == "cuda":
        # seeded by a draw of the device's generator, which moves it on
        u = torch.empty(1, dtype=torch.float64, device=dev).uniform_(0, 1).item()
        generator = torch.Generator().manual_seed(builtins.int(u * 2 ** 53))
    torch._C._random_int_("randperm", t, 0, builtins.max(n, 1), _gen_id(generator))
    return t.to(dev)


def bernoulli(input, p=None, *, generator=None, out=None):
    """PyTorch's CPU kernels, as compositions of the same draws: a tensor
    p compares one uniform of p's float type per element (24-bit for
    float32), a number p one float64 uniform."""
    if out is not None:
        raise _unmodeled.unsupported("torch.bernoulli(..., out=...)")
    if p is not None:
        return torch.empty_like(input).bernoulli_(p, generator=generator)
    return torch.empty_like(input).bernoulli_(input, generator=generator)


def bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, Tensor):
        udt = torch.float64 if p.dtype == torch.float64 else torch.float32
        u = torch.empty(broadcast_shapes(self.shape, p.shape), dtype=udt, device=self.device)
        u.uniform_(0, 1, generator=generator)
        return self.copy_(u < p.to(self.device))
    if not 0 <= p <= 1:
        raise RuntimeError("bernoulli_ expects p to be in [0, 1], but got p=%g" % p)
    # one draw per element in self's memory order (cpu_serial_kernel's
    # TensorIterator order), which empty_like keeps for a dense self
    u = torch.empty_like(self, dtype=torch.float64).uniform_(0, 1, generator=generator)
    return self.copy_(u < p)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """PyTorch 1.13's CPU algorithm. Without replacement:
    argmax/topk of p / q, q = -log(1 - u) float64 exponentials. With it:
    one float64 uniform per sample searched in the row's cumulative
    distribution, summed in the input's dtype and normalized."""
    if out is not None:
        raise _unmodeled.unsupported("torch.multinomial(..., out=...)")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: %s"
                           % _SCALAR_NAMES[input.dtype._name])
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = input.shape[-1]
    if not replacement and num_samples > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    # (PyTorch 2 also takes this path for one sample with replacement; 1.13,
    # the oracle, does not)
    if not replacement:
        if not ((input.max() < math.inf) & (input.min() >= 0)).item():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        sums = input.sum(-1)
        if (sums == 0).any().item():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        u = torch.empty(input.shape, dtype=torch.float64, device=input.device).uniform_(0, 1, generator=generator)
        q = input / (-(1 - u).log()).to(input.dtype)
        if num_samples == 1:
            return q.argmax(-1, keepdim=True)
        return q.topk(num_samples).indices
    rows = input.reshape(-1, n_categories)
    if (rows < 0).any().item():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if not rows.isfinite().all().item():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    # the running sum in the input's dtype, as the kernel's scalar_t sum
    acc = rows[:, 0].clone()
    cols = [acc]
    for j in range(1, n_categories):
        acc = acc + rows[:, j]
        cols.append(acc)
    cum = torch.stack(cols, -1)
    if (acc <= 0).any().item():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    cum = (cum / acc.unsqueeze(-1)).to(torch.float64)
    cum[:, -1] = 1
    u = torch.empty(rows.shape[0], num_samples, dtype=torch.float64, device=input.device)
    u.uniform_(0, 1, generator=generator)
    r = searchsorted(cum, u)
    return r.reshape(num_samples) if input.dim() == 1 else r


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False, layout=None, pin_memory=False):
    """normal(mean, std) with tensor means or stds: standard normals drawn
    in the broadcast shape, scaled and shifted (PyTorch's CPU kernel does
    the same: normal_(0, 1), then * std + mean)."""
    if out is not None:
        raise _unmodeled.unsupported("torch.normal(..., out=...)")
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal() missing required argument 'size'")
        t = torch.empty(_size_arg(size), dtype=dtype, device=device).normal_(mean, std, generator=generator)
        return t.requires_grad_() if requires_grad else t
    if isinstance(std, Tensor) and (std < 0).any().item():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    like = mean if isinstance(mean, Tensor) else std
    shape = broadcast_shapes(*(t.shape for t in (mean, std) if isinstance(t, Tensor)))
    z = torch.empty(shape, dtype=like.dtype, device=like.device).normal_(0, 1, generator=generator)
    return z * std + mean


# -- counting and searching -----------------------------------------------------------------


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """The insertion points of input in each row of sorted_sequence: a
    count of the elements below (left) or not above (right) each value,
    through one broadcast comparison."""
    if out is not None:
        raise _unmodeled.unsupported("torch.searchsorted(..., out=...)")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("torch.searchsorted(): side can only be 'left' or 'right' but got %s" % side)
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    if scalar:
        input = torch.tensor(input, device=sorted_sequence.device)
    seq = sorted_sequence
    if sorter is not None:
        seq = seq.gather(-1, sorter)
    if seq.dim() > 1 and seq.shape[:-1] != input.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           "boundaries tensor %s and input value tensor %s" % (list(seq.shape), list(input.shape)))
    dt = _result_type(seq, input)
    s, v = seq.to(dt), input.to(dt)
    if seq.dim() == 1:
        below = (s <= v.unsqueeze(-1)) if right else (s < v.unsqueeze(-1))
    else:
        below = (s.unsqueeze(-2) <= v.unsqueeze(-1)) if right else (s.unsqueeze(-2) < v.unsqueeze(-1))
    r = below.sum(-1)
    r = r.to(torch.int32) if out_int32 else r
    return r.reshape(()) if scalar else r


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    if boundaries.dim() != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got dim(%d)" % boundaries.dim())
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def bincount(input, weights=None, minlength=0):
    if input.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.dtype.is_floating_point or input.dtype == torch.bool:
        raise RuntimeError("\"bincount_cpu\" not implemented for '%s'" % _SCALAR_NAMES[input.dtype._name])
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.numel() and input.min().item() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = builtins.max(minlength, input.max().item() + 1 if input.numel() else 0)
    if weights is None:
        return torch.zeros(n, dtype=torch.int64, device=input.device).index_add_(
            0, input.to(torch.int64), torch.ones(input.shape[0], dtype=torch.int64, device=input.device))
    wdt = weights.dtype if weights.dtype.is_floating_point else torch.float64
    wdt = torch.float64 if wdt != torch.float32 else wdt
    return torch.zeros(n, dtype=wdt, device=input.device).index_add_(0, input.to(torch.int64), weights.to(wdt))


def histc(input, bins=100, min=0, max=0, *, out=None):
    """ATen's histc: bins over [min, max] (the data's range when both are
    0, widened by 1 when empty), the last bin closed; elements outside
    dropped."""
    if out is not None:
        raise _unmodeled.unsupported("torch.histc(..., out=...)")
    if not input.dtype.is_floating_point:
        raise RuntimeError("\"histogram_cpu\" not implemented for '%s'" % _SCALAR_NAMES[input.dtype._name])
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got %d for dimension 0" % bins)
    lo, hi = builtins.float(min), builtins.float(max)
    if lo == hi and input.numel() > 0:
        lo, hi = input.min().item(), input.max().item()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = input.reshape(-1)
    x = x.masked_select((x >= lo) & (x <= hi))
    # PyTorch: pos = (x - leftmost) * bins / (rightmost - leftmost), in
    # the input's dtype; the right edge goes into the last bin
    idx = ((x - lo) * bins / (hi - lo)).to(torch.int64).clamp_max(bins - 1)
    return torch.zeros(bins, dtype=input.dtype, device=input.device).index_add_(
        0, idx, torch.ones(idx.shape[0], dtype=input.dtype, device=input.device))


# -- unique(sorted=False) on CPU tensors: std::unordered_set's order -------------------------
#
# PyTorch 1.13's CPU unique with sorted=False copies out a
# std::unordered_set<scalar_t> built from the elements, so its order is
# libstdc++'s (GCC 12, Debian's build) iteration order: one singly-linked
# list in which a node whose hash bucket is empty goes to the front and any
# other to the front of its bucket's group, so the list is the buckets'
# groups, newest group first, each newest element first. The table starts
# at one bucket and, when an element would exceed one per bucket, grows to
# the first prime of libstdc++'s list at or above max(count + 1, twice the
# buckets), relinking the list in its order by the same rule. std::hash is
# the value for integers and bool, 0 for +-0.0, and libstdc++'s 64-bit
# Murmur hash (_Hash_bytes, seed 0xc70f6907) of a float's or double's
# bytes otherwise. Checked against Debian's python3-torch on random
# inputs (collisions, growth, negative, -0.0, NaN). CUDA tensors keep the
# sorted order: PyTorch's CUDA unique sorts whatever sorted says.

_MASK64 = (1 << 64) - 1
_MURMUR_MUL = (0xc6a4a793 << 32) + 0x5bd1e995
_HASH_SEED = 0xc70f6907
# libstdc++'s bucket counts from 13 up (its lookup starts there)
_BUCKET_PRIMES = (
    13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113, 127, 137, 139,
    149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577,
    619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357,
    2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497,
    10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183, 20753, 22447, 24281, 26267, 28411, 30727,
    33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203, 99733,
    107897, 116731, 126271, 136607, 147793, 159871, 172933, 187091, 202409, 218971, 236897, 256279, 277261,
    299951, 324503, 351061, 379787, 410857, 444487, 480881, 520241, 562841, 608903, 658753, 712697, 771049,
    834181, 902483, 976369, 1056323, 1142821, 1236397, 1337629, 1447153, 1565659, 1693859, 1832561, 1982627,
    2144977, 2320627, 2510653, 2716249, 2938679, 3179303, 3439651, 3721303, 4026031, 4355707, 4712381, 5098259,
    5515729, 5967347, 6456007, 6984629, 7556579, 8175383, 8844859, 9569143, 10352717, 11200489, 12117689,
    13109983, 14183539, 15345007, 16601593, 17961079, 19431899, 21023161, 22744717, 24607243, 26622317,
    28802401, 31160981, 33712729, 36473443, 39460231, 42691603, 46187573, 49969847, 54061849, 58488943,
    63278561, 68460391, 74066549, 80131819, 86693767, 93793069, 101473717, 109783337, 118773397, 128499677,
    139022417, 150406843, 162723577, 176048909, 190465427, 206062531, 222936881, 241193053, 260944219,
    282312799, 305431229, 330442829, 357502601, 386778277, 418451333, 452718089, 489790921, 529899637,
    573292817, 620239453, 671030513, 725980837, 785430967, 849749479, 919334987, 994618837, 1076067617,
    1164186217, 1259520799, 1362662261, 1474249943, 1594975441, 1725587117, 1866894511, 2019773507,
    2185171673, 2364114217, 2557710269, 2767159799, 2993761039, 3238918481, 3504151727, 3791104843,
    4101556399, 4294967291)
_HASH_FORMATS = {"float32": "<f", "float64": "<d"}


def _murmur64(data):
    def mix(v):
        return v ^ (v >> 47)
    h = (_HASH_SEED ^ (len(data) * _MURMUR_MUL)) & _MASK64
    whole = len(data) & ~7
    for i in range(0, whole, 8):
        k = (mix((int.from_bytes(data[i:i + 8], "little") * _MURMUR_MUL) & _MASK64) * _MURMUR_MUL) & _MASK64
        h = ((h ^ k) * _MURMUR_MUL) & _MASK64
    if len(data) & 7:
        h = ((h ^ int.from_bytes(data[whole:], "little")) * _MURMUR_MUL) & _MASK64
    return mix((mix(h) * _MURMUR_MUL) & _MASK64)


def _unordered_set_order(values, dtype):
    fmt = _HASH_FORMATS.get(dtype._name)

    def std_hash(v):
        if fmt is None:
            return v & _MASK64
        return 0 if v == 0 else _murmur64(_struct.pack(fmt, v))

    # limit: the count past which the table grows (0 before the first)
    n_buckets, limit, groups, group_order, seen = 1, 0, {}, [], set()

    def link(v, h):
        b = h % n_buckets
        if b not in groups:
            groups[b] = []
            group_order.append(b)
        groups[b].append((v, h))

    def in_order():
        return [item for b in reversed(group_order) for item in reversed(groups[b])]

    count = 0
    for v in values:
        if v == v and v in seen:
            continue
        if count + 1 > limit:
            n_buckets = limit = next(p for p in _BUCKET_PRIMES if p >= builtins.max(count + 2, 2 * n_buckets))
            items = in_order()
            groups, group_order = {}, []
            for item in items:
                link(*item)
        link(v, std_hash(v))
        count += 1
        if v == v:
            seen.add(v)
    return [v for v, _ in in_order()]


def _unique_unsorted_cpu(input, return_inverse, return_counts):
    """unique(sorted=False) of a CPU tensor in PyTorch's order, with its
    inverse and counts from std::unordered_map lookups (a NaN is never
    found: its inverse and count are 0, as PyTorch's are)."""
    flat = input.reshape(-1).tolist()
    vals = _unordered_set_order(flat, input.dtype)
    out = [torch.tensor(vals, dtype=input.dtype)]
    pos = {v: i for i, v in enumerate(vals) if v == v}
    if return_inverse:
        out.append(torch.tensor([pos.get(v, 0) if v == v else 0 for v in flat], dtype=torch.int64)
                   .reshape(input.shape))
    if return_counts:
        counts = [0] * len(vals)
        for v in flat:
            if v == v:
                counts[pos[v]] += 1
        out.append(torch.tensor(counts, dtype=torch.int64))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_runs(sorted_vals):
    """The first element of each run of equal values, as a bool mask."""
    first = torch.ones(sorted_vals.shape, dtype=torch.bool, device=sorted_vals.device)
    if sorted_vals.numel() > 1:
        first[1:] = sorted_vals[1:] != sorted_vals[:-1]
    return first


def _runs_result(vals, first, order, return_inverse, return_counts, inverse_shape):
    out = [vals.masked_select(first)]
    if return_inverse:
        run_id = first.to(torch.int64).cumsum(0) - 1
        inv = run_id if order is None else torch.empty_like(run_id).scatter_(0, order, run_id)
        out.append(inv.reshape(inverse_shape))
    if return_counts:
        starts = torch.nonzero(first).reshape(-1)
        ends = torch.cat([starts[1:], torch.tensor([vals.numel()], device=vals.device)])
        out.append(ends - starts)
    return out[0] if len(out) == 1 else tuple(out)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Sorted unique values, with the inverse map and the counts; a CPU
    tensor with sorted=False in PyTorch 1.13's hash-set order (below; bool
    and CUDA tensors come sorted there too). Over a dim the slices are
    compared on the host, as tuples."""
    if dim is not None:
        return _unique_dim(input, _wrap_dim(dim, input.dim()), return_inverse, return_counts)
    if not sorted and not input.is_cuda and input.dtype is not torch.bool:
        return _unique_unsorted_cpu(input, return_inverse, return_counts)
    flat = input.reshape(-1)
    vals, order = flat.sort(stable=True)
    return _runs_result(vals, _unique_runs(vals), order, return_inverse, return_counts, input.shape)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        raise _unmodeled.unsupported("torch.unique_consecutive(dim=...)")
    flat = input.reshape(-1)
    return _runs_result(flat, _unique_runs(flat), None, return_inverse, return_counts, input.shape)


def _unique_dim(input, dim, return_inverse, return_counts):
    x = input.movedim(dim, 0)
    keys = [tuple(builtins.map(_total_key, _flatten(row))) for row in x.tolist()]
    uniq = builtins.sorted(set(keys))
    pos = {k: i for i, k in enumerate(uniq)}
    firsts = [keys.index(k) for k in uniq]
    out = [input.index_select(dim, torch.tensor(firsts, dtype=torch.int64, device=input.device))]
    if return_inverse:
        out.append(torch.tensor([pos[k] for k in keys], dtype=torch.int64, device=input.device))
    if return_counts:
        out.append(torch.tensor([keys.count(k) for k in uniq], dtype=torch.int64, device=input.device))
    return out[0] if len(out) == 1 else tuple(out)


def _flatten(v):
    if isinstance(v, list):
        for item in v:
            yield from _flatten(item)
    else:
        yield v


def _total_key(v):
    return (1, 0) if v != v else (0, v)


_warned = []
_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _beta_warning(reduce):
    """The reduce check, then TORCH_WARN_ONCE: once a process, at the
    caller's line."""
    if reduce not in _SCATTER_REDUCES:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin.")
    if not _warned:
        _warned.append(True)
        warnings.warn("scatter_reduce() is in beta and the API may change at any time. (Triggered internally "
                      "at  ./aten/src/ATen/native/TensorAdvancedIndexing.cpp:1615.)", stacklevel=3)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    _beta_warning(reduce)
    return _scatter_reduce(input.clone(), dim, index, src, reduce, include_self)


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    _beta_warning(reduce)
    return _scatter_reduce(self, dim, index, src, reduce, include_self)


def _scatter_reduce(self, dim, index, src, reduce, include_self):
    """sum and mean through scatter_add_; amax and amin as scatter_ of the
    values in sorted order (the last write, the extreme, wins; NaN sorts
    last and so propagates); prod in rounds of distinct targets."""
    dim = _wrap_dim(dim, self.dim())
    touched = torch.zeros(self.shape, dtype=torch.int64, device=self.device).scatter_add_(
        dim, index, torch.ones(index.shape, dtype=torch.int64, device=self.device))
    hit = touched > 0
    if not include_self:
        fill = 0 if reduce in ("sum", "mean") else 1 if reduce == "prod" else \
            (-math.inf if reduce == "amax" else math.inf)
        if reduce in ("amax", "amin") and not self.dtype.is_floating_point:
            fill = iinfo(self.dtype).min if reduce == "amax" else iinfo(self.dtype).max
        self.masked_fill_(hit, fill)
    if reduce in ("sum", "mean"):
        self.scatter_add_(dim, index, src[tuple(slice(0, n) for n in index.shape)])
        if reduce == "mean":
            count = touched + (1 if include_self else 0)
            count = count.masked_fill(count == 0, 1).to(self.dtype)
            if self.dtype.is_floating_point:
                self.copy_(self / count)
            else:
                self.copy_(self // count)
        return self
    # flatten to (target position, value) pairs
    src = src[tuple(slice(0, n) for n in index.shape)]
    coords = [torch.arange(n, device=self.device).reshape([-1 if k == d else 1 for k in range(index.dim())])
              .expand(index.shape) for d, n in enumerate(index.shape)]
    coords[dim] = index
    pos = torch.zeros(index.shape, dtype=torch.int64, device=self.device)
    stride = 1
    for d in reversed(range(self.dim())):
        pos = pos + coords[d] * stride
        stride *= self.shape[d]
    base = self.contiguous().reshape(-1)
    if reduce == "prod":
        return self.copy_(_scatter_prod(base, pos.reshape(-1), src.reshape(-1)).reshape(self.shape))
    vals, order = src.reshape(-1).sort(descending=(reduce == "amin"))
    extreme = base.clone().scatter_(0, pos.reshape(-1).index_select(0, order), vals)
    pick = torch.maximum if reduce == "amax" else torch.minimum
    return self.copy_(pick(base, extreme).reshape(self.shape))


def _scatter_prod(base, pos, vals):
    """base[pos[i]] *= vals[i] in i's order, as the CPU kernel multiplies:
    round k multiplies in each target's k-th contribution (the targets of
    one round are distinct, so an index_put_ does it exactly)."""
    out = base.clone()
    if pos.numel() == 0:
        return out
    targets, order = pos.sort(stable=True)
    first = _unique_runs(targets)
    starts = torch.nonzero(first).reshape(-1)
    run_id = first.to(torch.int64).cumsum(0) - 1
    rank = torch.arange(pos.numel(), device=pos.device) - starts.index_select(0, run_id)
    for k in range(rank.max().item() + 1):
        sel = rank == k
        t = targets.masked_select(sel)
        out[t] = out.index_select(0, t) * vals.index_select(0, order.masked_select(sel))
    return out


def index_fill_(self, dim, index, value):
    dim = _wrap_dim(dim, self.dim())
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d "
                               "dimension(s)." % value.dim())
        value = value.item()
    shape = list(self.shape)
    if shape:
        shape[dim] = index.numel()
    source = torch.full(shape, value, dtype=self.dtype, device=self.device)
    return self.index_copy_(dim, index.reshape(-1).to(torch.int64), source)


def index_fill(self, dim, index, value):
    return index_fill_(self.clone(), dim, index, value)


def _check_last_stride(strides, names):
    if strides[-1] != 1:
        raise RuntimeError("self.stride(-1) must be 1 to view %s as %s (different element sizes), but got %d"
                           % (names + (strides[-1],)))


def view_dtype(self, dtype):
    """Tensor.view(dtype): the same bytes seen as dtype, ATen's view_dtype
    geometry (the last dim scales by the size ratio). Not differentiable,
    as in PyTorch."""
    old, new = self.dtype.itemsize, dtype.itemsize
    names = (_SCALAR_NAMES[self.dtype._name], _SCALAR_NAMES[dtype._name])
    shape, strides, offset = list(self.shape), list(self.stride()), self.storage_offset()
    if old != new:
        if self.dim() == 0:
            raise RuntimeError("self.dim() cannot be 0 to view %s as %s (different element sizes)" % names)
    if old > new:
        _check_last_stride(strides, names)
        ratio = old // new
        shape[-1] *= ratio
        strides = [s * ratio for s in strides[:-1]] + [1]
        offset *= ratio
    elif old < new:
        ratio = new // old
        if shape[-1] % ratio:
            raise RuntimeError("self.size(-1) must be divisible by %d to view %s as %s (different element sizes), "
                               "but got %d" % ((ratio,) + names + (shape[-1],)))
        if offset % ratio:
            raise RuntimeError("self.storage_offset() must be divisible by %d to view %s as %s (different element "
                               "sizes), but got %d" % ((ratio,) + names + (offset,)))
        _check_last_stride(strides, names)
        for d, s in enumerate(strides[:-1]):
            if s % ratio:
                raise RuntimeError("self.stride(%d) must be divisible by %d to view %s as %s (different element "
                                   "sizes), but got %d" % ((d, ratio) + names + (s,)))
        shape[-1] //= ratio
        strides = [s // ratio for s in strides[:-1]] + [1]
        offset //= ratio
    return torch._C._view_dtype(self, dtype, shape, strides, offset)


# -- installing -----------------------------------------------------------------------------

_TORCH = ("where", "nan_to_num", "nan_to_num_", "lerp", "addcmul", "addcdiv", "round", "round_", "logsumexp",
          "var", "std", "var_mean", "std_mean", "addmm", "mv", "addmv", "dot", "vdot", "outer", "ger", "addr",
          "baddbmm", "addbmm", "diagonal", "diag_embed", "diag", "trace", "eye", "logspace", "norm", "dist",
          "cdist", "cosine_similarity", "pairwise_distance", "einsum", "randint", "randint_like", "rand_like",
          "randn_like", "randperm", "bernoulli", "multinomial", "normal", "searchsorted", "bucketize",
          "bincount", "histc", "unique", "unique_consecutive", "scatter_reduce", "index_fill",
          "broadcast_shapes", "broadcast_tensors", "finfo", "iinfo", "result_type")
_METHODS = ("nan_to_num", "nan_to_num_", "lerp", "lerp_", "addcmul", "addcmul_", "addcdiv", "addcdiv_",
            "round", "round_", "logsumexp", "var", "std", "addmm", "mv", "addmv", "dot", "vdot", "outer",
            "ger", "addr", "baddbmm", "addbmm", "diagonal", "diag_embed", "diag", "trace", "norm", "dist",
            "random_", "bernoulli", "bernoulli_", "multinomial", "bincount", "histc", "unique",
            "unique_consecutive", "scatter_reduce", "scatter_reduce_", "index_fill_", "index_fill")
_INPLACE_OF = ("addmm", "addmv", "baddbmm", "addbmm", "addr")


def result_type(tensor1, tensor2):
    return _result_type(tensor1, tensor2)


def _install():
    import torch.nn.functional as F
    g = globals()
    torch._install_names(g, methods=_METHODS, functions=_TORCH)
    # Tensor.where (condition, other) is torch.where (condition, self, other)
    Tensor.where = lambda self, condition, other: where(condition, self, other)
    for name in _INPLACE_OF:
        setattr(Tensor, name + "_", _inplace(g[name]))
    for name in ("normalize", "cosine_similarity", "pairwise_distance"):
        setattr(F, name, g[name])
    torch.return_types.var_mean = _return_type("var_mean", ("var", "mean"))
    from torch import linalg
    linalg._install(g)
