"""out=: PyTorch's rules for a result written into a given tensor, once.

What ATen does for every op with an out= overload (TensorIterator's out
handling and Resize.cpp's resize_output):
  - the result is computed with the op's ordinary dtype promotion and
    broadcasting; out= with an input or out that requires grad is refused
    while grad mode is on (no graph can be recorded into out);
  - out must be on the result's device, and the result's dtype must be
    allowed into out's: how strictly depends on the op's family (the
    policies below, each with its ATen message);
  - out is resized when its shape differs, with a deprecation warning when
    it had elements (its storage is reused when it is large enough);
  - the values are written and out itself is returned (a tuple of the outs,
    as the op's return type, for the ops with several results).

Elementwise ops of the op table write straight into out when its shape
already fits (the C binding's direct path: one kernel, no allocation;
ts-py-tensor.c calls elementwise() here only for a resize or a grad
error). cat, stack, tril and triu resize out and write into it too. Every
other op computes its result and copies it into out: one copy where
PyTorch writes in place, the same values, dtypes, errors and warnings.
"""

import builtins as _builtins

import torch
import torch._indexing
from torch._shape import _CPP_NAMES, _SCALAR_NAMES

# ATen's resize_output warning, as PyTorch 1.13 prints it
_RESIZED = ("An output with one or more elements was resized since it had shape [%s], which does not match the "
            "required output shape [%s]. This behavior is deprecated, and in a future PyTorch release outputs "
            "will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by "
            "resizing it, inplace, to zero elements with t.resize_(0). (Triggered internally at  "
            "./aten/src/ATen/native/Resize.cpp:17.)")


def _scalar_name(dt):
    return _SCALAR_NAMES[dt._name]


def _cpp_name(dt):
    return _CPP_NAMES[dt._name]


# a UserWarning at the first frame outside torch, where PyTorch's C++
# warning surfaces
warn_user = torch._indexing._warn_user


def can_cast(from_, to):
    """torch.can_cast: c10's canCast (no float into an integer, nothing
    but bool into bool)."""
    if from_.is_floating_point and not to.is_floating_point:
        return False
    return not (from_ != torch.bool and to == torch.bool)


# Resizing ----------------------------------------------------------------------------


def resize_(self, *size):
    """Tensor.resize_: to another shape, contiguous strides over the same
    storage from the same offset when the storage is large enough, else a
    new storage holding the old elements first (as ATen grows one)."""
    shape = tuple(torch._shape_arg(size))
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if tuple(self.shape) == shape:
        return self  # its strides too, as ATen's
    n = 1
    for s in shape:
        if s < 0:
            raise RuntimeError("Trying to create tensor with negative dimension %d: [%s]"
                               % (s, ", ".join(map(str, shape))))
        n *= s
    offset = self.storage_offset()
    if (offset + n) * self.element_size() <= self._storage_nbytes():
        # the storage holds them (a shrink, or a grow back after one)
        strides, acc = [], 1
        for s in reversed(shape):
            strides.insert(0, acc)
            acc *= s
        new = torch._C._view_dtype(self, self.dtype, list(shape), strides, offset)
    else:
        new = torch.empty(shape, dtype=self.dtype, device=self.device)
        keep = _builtins.min(n, self.numel())
        if keep and self.is_contiguous():
            new.reshape(-1)[:keep].copy_(self.reshape(-1)[:keep])
    torch._C._set_data(self, new)
    return self


def resize_output(out, shape):
    """ATen's resize_output: out is given shape, warning when it had
    elements of another shape. Returns whether it changed."""
    shape = tuple(shape)
    if tuple(out.shape) == shape:
        return False
    if out.numel() != 0:
        warn_user(_RESIZED % (", ".join(map(str, out.shape)), ", ".join(map(str, shape))))
    resize_(out, shape)
    return True


# Checks ----------------------------------------------------------------------------------


def check_grad(name, tensors):
    if torch.is_grad_enabled() and _builtins.any(t.requires_grad for t in tensors):
        raise RuntimeError("%s(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad." % name)


def check_device(device, out):
    """out on the result's device"""
    if device != out.device:
        a, b = device, out.device
        if a.type == "cpu":
            a, b = b, a  # ATen names the device that is not the CPU first
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                           "%s and %s!" % (a, b))


def _tensors(args):
    for a in args:
        if isinstance(a, torch.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (t for t in a if isinstance(t, torch.Tensor))


# The dtype policies: what an op family lets its result's dtype write into
# out's, each with ATen's message. (result dtype, out, input dtype)


def cast(name, have, out, inp):
    """TensorIterator's cast_common_dtype_to_outputs: any cast c10 allows."""
    if not can_cast(have, out.dtype):
        raise RuntimeError("result type %s can't be cast to the desired output type %s"
                           % (_scalar_name(have), _scalar_name(out.dtype)))


def any_dtype(name, have, out, inp):
    """norm: ATen casts its result into out's dtype, whatever it is"""


def joined(name, have, out, inp):
    if not can_cast(have, out.dtype):
        raise RuntimeError("torch.cat(): input types can't be cast to the desired output type %s"
                           % _scalar_name(out.dtype))


def equal_dtype(message):
    """A policy that wants out of the result's dtype exactly, refusing
    another with message: str.format fields {name}, {have} and {out} (the
    ScalarType names), {have_cpp} and {out_cpp} (the C++ ones), {int32}
    (whether the result is int32: searchsorted's out_int32 flag)."""
    def policy(name, have, out, inp):
        if have != out.dtype:
            raise RuntimeError(message.format(name=name, have=_scalar_name(have), out=_scalar_name(out.dtype),
                                              have_cpp=_cpp_name(have), out_cpp=_cpp_name(out.dtype),
                                              int32=have == torch.int32))
    return policy


def bool_only(name, have, out, inp):
    """signbit, isneginf, isposinf: a bool out only"""
    if out.dtype != torch.bool:
        raise RuntimeError("%s does not support non-boolean outputs." % name)


def bool_or_byte(name, have, out, inp):
    """any, all: a bool or (the legacy byte result) uint8 out"""
    if out.dtype not in (torch.bool, torch.uint8):
        raise RuntimeError("%s only supports bool tensor for result, got: %s" % (name, _scalar_name(out.dtype)))


# TensorIterator with check_all_same_dtype (abs, neg, floor, clamp, pow with
# a scalar exponent, ...)
same = equal_dtype("Found dtype {out} but expected {have}")
# a structured kernel's out check (mm, sort, gather, ...)
exact = equal_dtype("Expected out tensor to have dtype {have_cpp}, but got {out_cpp} instead")
# the ops with words of their own
self_result = equal_dtype("{name}(): self and result must have the same scalar type")
take = equal_dtype("take(): self and out expected to have the same dtype, but got self.dtype = {have} and "
                   "out.dtype = {out}")
dot = equal_dtype("result dtype {out} does not match input dtype {have}")
# sic: no space before the type
nonzero = equal_dtype("nonzero: Expected out tensor to have scalar type Long but got scalar type{out}")
scalar_type = equal_dtype("expected scalar type {have} but found {out}")  # diag
scalar_type_ = equal_dtype("expected scalar_type {have} but found {out}")  # cummax, cummin
nan_to_num = equal_dtype("nan_to_num: dtype of out: {out} should be same as input: {have}")
histc = equal_dtype("torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
                    "{have_cpp} and hist {out_cpp}")
searchsorted = equal_dtype("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                           "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
                           "dtype {out} and out_int32 flag is {int32}")
kth_values = equal_dtype("output values must be of same type as input")
kth_indices = equal_dtype("output indices must be of scalar type Long")
amax = equal_dtype("Expected the dtype for input and out to match, but got {have} for input's dtype and {out} for "
                   "out's dtype.")


# Argument rewrites: ops whose result dtype is out's (dtype=None)


def _over_dims(name, args, kwargs):
    """sum, prod and mean over all elements have no out= overload"""
    if name in ("sum", "prod", "mean") and len(args) < 2 and kwargs.get("dim") is None:
        raise TypeError("%s() received an invalid combination of arguments - got (Tensor, out=Tensor), but "
                        "expected one of:\n * (Tensor input, *, torch.dtype dtype)\n * (Tensor input, tuple of "
                        "ints dim, bool keepdim, *, torch.dtype dtype, Tensor out)\n" % name)


def dtype_from_out(name, args, kwargs, outs):
    """sum, prod, cumsum, cumprod: out's dtype is the dtype= they reduce in."""
    _over_dims(name, args, kwargs)
    dt = kwargs.get("dtype")
    if dt is None:
        kwargs["dtype"] = outs[0].dtype
    elif dt != outs[0].dtype:
        exact(name, dt, outs[0], None)


def float_from_out(name, args, kwargs, outs):
    """std, var, logsumexp: computed in out's floating dtype."""
    out, inp = outs[0], args[0]
    if not out.dtype.is_floating_point:
        if name == "logsumexp":
            raise RuntimeError("logsumexp(): Expected floating point type for result tensor, but got: %s"
                               % _scalar_name(out.dtype))
        if inp.dtype.is_floating_point:
            raise RuntimeError("\"std_%s\" not implemented for '%s'"
                               % ("cuda" if inp.is_cuda else "cpu", _scalar_name(out.dtype)))
        return args
    if inp.dtype.is_floating_point and inp.dtype != out.dtype:
        return (inp.to(out.dtype),) + tuple(args[1:])
    return args


def mean_dtype(name, args, kwargs, outs):
    """mean: as dtype_from_out, for a floating input only."""
    _over_dims(name, args, kwargs)
    out, inp = outs[0], args[0]
    if kwargs.get("dtype") is None:
        if inp.dtype.is_floating_point:
            cast(name, inp.dtype, out, inp)
            kwargs["dtype"] = out.dtype
            return
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           "complex dtype. Got: %s" % _scalar_name(inp.dtype))
    dtype_from_out(name, args, kwargs, outs)


# The mechanism --------------------------------------------------------------------------


def _out_tensors(name, out, n):
    if n == 1:
        if not isinstance(out, torch.Tensor):
            raise TypeError("%s(): argument 'out' must be Tensor, not %s" % (name, type(out).__name__))
        return (out,)
    if not isinstance(out, (tuple, list)) or not _builtins.all(isinstance(o, torch.Tensor) for o in out):
        raise TypeError("%s(): argument 'out' must be tuple of Tensors, not %s" % (name, type(out).__name__))
    if len(out) != n:
        raise TypeError("expected tuple of %d elements but got %d" % (n, len(out)))
    return tuple(out)


def write(name, result, out, policy, inp=None):
    """result's values into out, under policy; returns out."""
    check_device(result.device, out)
    policy(name, result.dtype, out, inp)
    resize_output(out, result.shape)
    if out._shares_storage(result) and out.data_ptr() == result.data_ptr() and out._stride() == result._stride():
        return out  # an op that handed back its own input (an identity)
    out.copy_(result)
    return out


def run(name, fn, args, kwargs, out, policy=cast, n_out=1, prepare=None):
    """fn(*args, **kwargs) written into out: the generic path."""
    outs = _out_tensors(name, out, n_out)
    check_grad(name, list(_tensors(args)) + list(_tensors(kwargs.values())) + list(outs))
    if prepare is not None:
        args = prepare(name, args, kwargs, outs) or args
    result = fn(*args, **kwargs)
    inp = args[0] if args and isinstance(args[0], torch.Tensor) else None
    if n_out == 1:
        return write(name, result, outs[0], policy, inp)
    # one policy for all the outs, or one each (values, indices)
    policies = policy if isinstance(policy, tuple) else (policy,) * n_out
    for r, o, p in zip(result, outs, policies):
        check_device(r.device, o)
        p(name, r.dtype, o, inp)
    for r, o, p in zip(result, outs, policies):
        write(name, r, o, p, inp)
    kind = type(result)
    return _out_type(kind)(outs) if kind is not tuple else outs


_out_types = {}


def _out_type(kind):
    """torch.return_types.<name>_out, PyTorch's type of an op's tuple of
    outs: the op's own return type under that name."""
    t = _out_types.get(kind)
    if t is None:
        old, new = kind.__name__ + "(", kind.__name__ + "_out("
        t = type(kind.__name__ + "_out", (kind,),
                 {"__slots__": (), "__repr__": lambda self: kind.__repr__(self).replace(old, new, 1)})
        _out_types[kind] = t
    return t


def wrap(name, fn, policy=cast, n_out=1, prepare=None):
    """torch.<name> with out=, computing through fn (called without out).
    The layer is torch._C._OutWrapper: no cost of note and no traceback
    frame of its own on calls without out=."""
    def runner(args, kwargs, out):
        return run(name, fn, args, kwargs, out, policy, n_out, prepare)
    return torch._C._OutWrapper(name, fn, runner)


def elementwise(name, args, out, shape):
    """The C binding's out= of an op of the op table that it does not write
    directly: a grad to refuse, or out of another shape. out is resized,
    then written by the op itself (one kernel, as ATen); an error puts
    out back as it was, as ATen checks before it resizes."""
    _out_tensors(name, out, 1)
    check_grad(name, list(_tensors(args)) + [out])
    fn = torch._C._op_functions.get(name) or torch._C._slot_op_functions[name]
    was = tuple(out.shape)
    saved = torch._C._make_subclass(torch.Tensor, out)
    resize_(out, shape)
    try:
        fn(*args, out=out)
    except BaseException:
        torch._C._set_data(out, saved)
        raise
    if 0 not in was:
        warn_user(_RESIZED % (", ".join(map(str, was)), ", ".join(map(str, shape))))
    return out


# Factories: their result takes out's dtype and device, written in place -----------------


def factory_dtype(name, dtype, out):
    if dtype is not None and dtype != out.dtype:
        raise RuntimeError("dtype %s does not match dtype of out parameter (%s)"
                           % (_scalar_name(dtype), _scalar_name(out.dtype)))


def factory(name, shape, dtype, out, requires_grad=False):
    """empty/zeros/ones/full/rand/randn(..., out=): out resized to shape,
    for the caller to fill."""
    outs = _out_tensors(name, out, 1)
    factory_dtype(name, dtype, outs[0])
    if requires_grad:
        # PyTorch's factories take requires_grad only without out=
        raise RuntimeError("%s(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad." % name)
    check_grad(name, outs)
    # a factory's out= is resized without the deprecation warning (ATen's
    # *_out factories call resize_ itself)
    return resize_(outs[0], shape)


def _factory_of(name, fn):
    def runner(args, kwargs, out):
        _out_tensors(name, out, 1)
        dtype, requires_grad = kwargs.pop("dtype", None), kwargs.pop("requires_grad", False)
        kwargs.pop("device", None)
        values = fn(*args, dtype=out.dtype, device=out.device, **kwargs)
        return factory(name, values.shape, dtype, out, requires_grad).copy_(values)
    return torch._C._OutWrapper(name, fn, runner)


# The ops PyTorch gives out= that Tensorscope has not bound to this: out=
# names them (never a TypeError about the keyword).
def refuse(name, fn):
    def runner(args, kwargs, out):
        raise torch._unmodeled.unsupported("torch.%s(..., out=...)" % name)
    return torch._C._OutWrapper(name, fn, runner)


# What each op's out= follows: (dtype policy, number of outs, argument
# rewrite); wrap() puts a (C) layer before the op for it. The op table's
# elementwise ops (exp, abs, maximum, eq, pow, ...), cat/stack, tril/triu,
# cumsum/cumprod and the factories handle out= where they are defined,
# with the functions above; so do where, lerp, addcmul and addcdiv (run(),
# cast policy).
_OPS = {
    "clamp": (same, 1, None), "clip": (same, 1, None),
    "sum": (cast, 1, dtype_from_out), "prod": (cast, 1, dtype_from_out), "mean": (cast, 1, mean_dtype),
    "amax": (amax, 1, None), "amin": (amax, 1, None), "logsumexp": (cast, 1, float_from_out),
    "std": (cast, 1, float_from_out), "var": (cast, 1, float_from_out), "norm": (any_dtype, 1, None),
    "argmax": (exact, 1, None), "argmin": (exact, 1, None),
    "mm": (exact, 1, None), "matmul": (exact, 1, None), "bmm": (exact, 1, None), "addmm": (exact, 1, None),
    "baddbmm": (exact, 1, None), "addbmm": (exact, 1, None), "mv": (exact, 1, None),
    "addmv": (exact, 1, None), "dot": (dot, 1, None), "outer": (cast, 1, None), "ger": (cast, 1, None),
    "addr": (cast, 1, None), "softmax": (exact, 1, None), "log_softmax": (exact, 1, None),
    "index_select": (self_result, 1, None), "gather": (exact, 1, None), "take": (take, 1, None),
    "masked_select": (self_result, 1, None), "nonzero": (nonzero, 1, None), "diag": (scalar_type, 1, None),
    "sort": (exact, 2, None), "topk": (exact, 2, None), "kthvalue": ((kth_values, kth_indices), 2, None),
    "cummax": (scalar_type_, 2, None), "cummin": (scalar_type_, 2, None), "aminmax": (exact, 2, None),
    "nan_to_num": (nan_to_num, 1, None), "vdot": (dot, 1, None), "msort": (exact, 1, None),
    "scatter": (exact, 1, None), "scatter_add": (exact, 1, None), "index_add": (exact, 1, None),
    "index_copy": (exact, 1, None), "histc": (histc, 1, None), "searchsorted": (searchsorted, 1, None),
    "bucketize": (searchsorted, 1, None),
}

# PyTorch's other ops with out= that torch here provides: out= names them
_REFUSED = ("bernoulli", "multinomial", "normal", "scatter_reduce", "argsort", "tensordot", "kron", "cross")
# factories computed whole (their values need more than a fill): into out's
# dtype and device, then copied in
_FACTORIES = ("eye", "logspace", "randint", "randperm")


def _max_min(name, fn):
    """max/min: out=(values, indices) along a dim, out= tensor with a
    second tensor (maximum/minimum); PyTorch has no out= for all of them."""
    pair = getattr(torch, "maximum" if name == "max" else "minimum")

    def runner(args, kwargs, out):
        input = args[0] if args else kwargs.get("input")
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        if isinstance(dim, torch.Tensor):
            return pair(input, dim, out=out)
        if dim is None:
            raise TypeError("%s() received an invalid combination of arguments - got (Tensor, out=%s), but "
                            "expected one of:\n * (Tensor input)\n * (Tensor input, int dim, bool keepdim, *, "
                            "tuple of Tensors out)\n * (Tensor input, Tensor other, *, Tensor out)\n"
                            % (name, type(out).__name__))
        return run(name, fn, (input, dim, keepdim), {}, out, exact, 2)
    return torch._C._OutWrapper(name, fn, runner)


def install():
    """Binds out= to torch's functions by the tables above."""
    torch._C._set_out_hook(elementwise)
    torch.Tensor.resize_ = resize_
    torch.can_cast = can_cast
    for name, (policy, n, prepare) in _OPS.items():
        setattr(torch, name, wrap(name, getattr(torch, name), policy, n, prepare))
    for name in _REFUSED:
        fn = getattr(torch, name, None)
        if fn is not None:
            setattr(torch, name, refuse(name, fn))
    for name in _FACTORIES:
        setattr(torch, name, _factory_of(name, getattr(torch, name)))
    torch.max = _max_min("max", torch.max)
    torch.min = _max_min("min", torch.min)
