"""Tensorscope's torch: the PyTorch API served by the instrumented core.

Tensors, operators, streams, events and the memory API are in torch._C (C,
linked into tensorscope-cli); this file adds what PyTorch itself writes in
Python: argument handling of the creation functions, torch.device and
torch.dtype, the legacy typed constructors, printing.
"""

import builtins as _builtins
import importlib.machinery as _machinery
import importlib.util as _util
import sys as _sys
import threading as _threading

# a Python number (alpha=, ...): the names int and float are dtypes here
_NUMBERS = (_builtins.int, _builtins.float)

from . import _unmodeled

# torch._C is linked into tensorscope-cli (PyImport_AppendInittab). The
# builtin importer only looks at top-level names, so load it by hand.
_spec = _machinery.BuiltinImporter.find_spec("torch._C")
if _spec is None:
    raise ImportError("Tensorscope's torch only runs inside `tensorscope-cli run`")
_C = _util.module_from_spec(_spec)
_spec.loader.exec_module(_C)
_sys.modules["torch._C"] = _C
del _spec



class TorchVersion(str):
    """torch.__version__ is a str subclass in PyTorch (torch.torch_version)."""


__version__ = TorchVersion("2.5.0+tensorscope")

# dtypes ---------------------------------------------------------------------


class dtype:
    __slots__ = ("_code", "_name", "is_floating_point", "is_signed", "itemsize", "is_complex")

    def __init__(self, code, name, floating, signed, itemsize):
        self._code = code
        self._name = name
        self.is_floating_point = floating
        self.is_signed = signed
        self.itemsize = itemsize
        self.is_complex = False

    @property
    def is_bool(self):
        return self._name == "bool"

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return self._name


float32 = dtype(0, "float32", True, True, 4)
float64 = dtype(1, "float64", True, True, 8)
float16 = dtype(2, "float16", True, True, 2)
bfloat16 = dtype(3, "bfloat16", True, True, 2)
int64 = dtype(4, "int64", False, True, 8)
int32 = dtype(5, "int32", False, True, 4)
uint8 = dtype(6, "uint8", False, False, 1)
bool = dtype(7, "bool", False, False, 1)
int8 = dtype(8, "int8", False, True, 1)
int16 = dtype(9, "int16", False, True, 2)
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
complex64 = dtype(10, "complex64", False, True, 8)
complex128 = dtype(11, "complex128", False, True, 16)
complex64.is_complex = complex128.is_complex = True
cfloat = complex64
cdouble = complex128
# Indexed by the core's TsDType codes.
_dtypes = (float32, float64, float16, bfloat16, int64, int32, uint8, bool, int8, int16, complex64, complex128)

_default_dtype = float32


def get_default_dtype():
    return _default_dtype


def set_default_dtype(d):
    """The dtype of floating-point tensors made without one (factories,
    tensor() of Python floats)."""
    global _default_dtype
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if d not in (float32, float64):
        # the kernels' type promotion knows only these two defaults
        raise _unmodeled.unsupported("torch.set_default_dtype(%r)" % d,
                                     "the default dtype is torch.float32 or torch.float64")
    _C._set_default_dtype(d)
    _default_dtype = d


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(t):
    return t.dtype.is_floating_point


# devices ---------------------------------------------------------------------


class device:
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, _builtins.int) and not isinstance(type, _builtins.bool):
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            self.type, self.index = "cuda", type
            return
        if not isinstance(type, str):
            raise TypeError("device() received an invalid combination of arguments")
        spec = type
        if ":" in spec:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was passed explicitly: " + spec)
            name, _, idx = spec.partition(":")
            if not idx.isdigit() or (len(idx) > 1 and idx[0] == "0"):
                raise RuntimeError("Invalid device string: '" + spec + "'")
            index = _builtins.int(idx)
        else:
            name = spec
        if name not in ("cpu", "cuda", "meta"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
                "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start "
                "of device string: " + spec)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = name, index

    def __repr__(self):
        if self.index is None:
            return "device(type='%s')" % self.type
        return "device(type='%s', index=%d)" % (self.type, self.index)

    def __str__(self):
        if self.index is None:
            return self.type
        return "%s:%d" % (self.type, self.index)

    def __eq__(self, other):
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    # `with torch.device("cuda:1"):` makes it the factories' default device
    # until the block ends (PyTorch's DeviceContext)
    def __enter__(self):
        _default_devices().append(self)
        return self

    def __exit__(self, *exc):
        _default_devices().pop()


def _device_arg(d):
    if d is None or isinstance(d, device):
        return d
    return device(d)


# The factories' default device, per thread as in PyTorch: set_default_device
# sets the bottom of the stack, `with torch.device(...)` pushes on it.
_device_context = _threading.local()


def _default_devices():
    stack = getattr(_device_context, "stack", None)
    if stack is None:
        stack = _device_context.stack = [None]
    return stack


def set_default_device(device):
    """The device factories (empty, zeros, tensor, arange, ...) use when
    they are given none; None goes back to the CPU."""
    _default_devices()[0] = _device_arg(device)


def get_default_device():
    d = _default_devices()[-1] or _CPU
    if d.type == "cuda" and d.index is None:
        return globals()["device"]("cuda", cuda.current_device())
    return d


def set_default_tensor_type(t):
    """PyTorch 2.1 deprecated it for what it does: set_default_dtype and,
    for a torch.cuda type, set_default_device("cuda")."""
    import warnings
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", stacklevel=2)
    if isinstance(t, str):
        obj = _sys.modules[__name__]
        for part in t.split(".")[1:]:
            obj = getattr(obj, part)
        t = obj
    dt = getattr(t, "dtype", None) if isinstance(t, type) else None
    if not isinstance(dt, dtype):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    set_default_dtype(dt)
    set_default_device("cuda" if t.is_cuda else None)


def _factory_device(d):
    """A factory's device argument: the default device when it has none."""
    if d is None:
        return _default_devices()[-1]
    return _device_arg(d)


# Size ------------------------------------------------------------------------


class Size(_C._SizeBase):
    # _SizeBase (C) indexes as a tuple and slices into a Size, as PyTorch's
    def __repr__(self):
        return "torch.Size([" + ", ".join(str(s) for s in self) + "])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    # concatenation and repetition stay sizes, as PyTorch's
    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


def _shape_arg(size):
    """empty(2, 3), empty((2, 3)), empty([2, 3]), empty(torch.Size(...))"""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


# Tensor -----------------------------------------------------------------------


class _TensorType(type):
    """torch.Tensor.x for an x Tensorscope does not model names it."""

    def __getattr__(cls, name):
        raise _unmodeled.missing("torch.Tensor", name, "type object '%s'" % cls.__name__)


class Tensor(_C.TensorBase, metaclass=_TensorType):
    """torch.Tensor; also the legacy constructor torch.Tensor(data or sizes)."""

    def __getattr__(self, name):
        # only reached when nothing else has the attribute
        raise _unmodeled.missing("torch.Tensor", name, "'%s' object" % type(self).__name__)

    def __new__(cls, *args, device=None, dtype=None):
        dt = dtype or _default_dtype
        if len(args) == 1 and _is_data(args[0]):
            t = tensor(args[0], dtype=dt, device=device)
        elif len(args) == 1 and isinstance(args[0], _C.TensorBase):
            t = args[0]
        else:
            t = _C._empty(_shape_arg(args) if args else (0,), dt, _device_arg(device))
        if cls is Tensor:
            return t
        return _C._make_subclass(cls, t)

    # attributes (shape: the C base's, a Size)
    def size(self, dim=None):
        if dim is None:
            return Size(self._shape)
        shape = self._shape
        n = len(shape)
        if not -_builtins.max(n, 1) <= dim < _builtins.max(n, 1):
            raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                             % (-_builtins.max(n, 1), _builtins.max(n, 1) - 1, dim))
        return shape[dim] if n else 1

    def stride(self, dim=None):
        s = self._stride()
        return s if dim is None else s[dim]

    @property
    def data(self):
        # the same memory, outside autograd: a Tensor that requires no grad
        return _C._make_subclass(Tensor, self)

    @data.setter
    def data(self, value):
        # p.data = t: p now shares t's storage and metadata, keeping its
        # own autograd state (PyTorch's set_data)
        if not isinstance(value, Tensor):
            raise TypeError("Variable data has to be a tensor, but got %s" % type(value).__name__)
        _C._set_data(self, value)

    @property
    def itemsize(self):
        return self.element_size()

    @property
    def nbytes(self):
        return self.numel() * self.element_size()

    @property
    def T(self):
        return self.t() if self.dim() == 2 else self.permute(*range(self.dim() - 1, -1, -1))

    # autograd (requires_grad, is_leaf, grad, grad_fn, retain_grad,
    # detach are TensorBase's, ts-py-autograd.c)
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        hook_id = self._register_hook(hook)
        return utils.hooks.RemovableHandle(lambda: self._remove_hook(hook_id))

    def register_post_accumulate_grad_hook(self, hook):
        hook_id = self._register_hook(hook, True)
        return utils.hooks.RemovableHandle(lambda: self._remove_hook(hook_id))

    def untyped_storage(self):
        return storage.UntypedStorage._from_tensor(self)

    def storage(self):
        return storage.UntypedStorage._from_tensor(self)

    # moving
    def to(self, *args, **kwargs):
        dev = kwargs.pop("device", None)
        dt = kwargs.pop("dtype", None)
        non_blocking = kwargs.pop("non_blocking", False)
        copy = kwargs.pop("copy", False)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError("to() received an invalid combination of arguments - got unexpected keyword " +
                            ", ".join(kwargs))
        rest = list(args)
        if rest and isinstance(rest[0], Tensor):
            other = rest.pop(0)
            dev, dt = other.device, other.dtype
        if rest and isinstance(rest[0], dtype):
            dt = rest.pop(0)
        elif rest and rest[0] is not None and isinstance(rest[0], (str, device, _builtins.int)) \
                and not isinstance(rest[0], _builtins.bool):
            dev = rest.pop(0)
            if rest and isinstance(rest[0], dtype):
                dt = rest.pop(0)
        if rest and isinstance(rest[0], _builtins.bool):
            non_blocking = rest.pop(0)
            if rest:
                copy = rest.pop(0)
        return self._to_checked(_device_arg(dev), dt, non_blocking, copy)

    def _to_checked(self, dev, dt, non_blocking, copy):
        """PyTorch's to(): self when nothing changes (and no copy is asked
        for); a non-blocking copy to the CPU lands in pinned memory."""
        if dev is not None and dev.type == "cuda" and dev.index is None:
            dev = globals()["device"]("cuda", cuda.current_device())
        same_dev = dev is None or dev == self.device
        same_dt = dt is None or dt == self.dtype
        if same_dev and same_dt and not copy:
            return self
        if non_blocking and self.is_cuda and dev is not None and dev.type == "cpu":
            out = empty(self.shape, dtype=dt or self.dtype, pin_memory=True)
            return out.copy_(self, non_blocking=True)
        return self._to(dev, dt, non_blocking, copy)

    def cuda(self, device=None, non_blocking=False, **kwargs):
        if device is None:
            device = cuda.current_device()
        dev = _device_arg(device)
        if dev.type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        if dev.index is None:
            dev = globals()["device"]("cuda", cuda.current_device())
        return self._to_checked(dev, None, non_blocking, False)

    def cpu(self, **kwargs):
        return self._to_checked(_CPU, None, False, False)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + _LEGACY_NAMES[self.dtype]
        if isinstance(dtype, str):
            for d, name in _LEGACY_NAMES.items():
                if dtype.endswith("." + name):
                    return self._to(None, d, non_blocking, False)
            raise ValueError("invalid type: '%s'" % dtype)
        return self._to(None, dtype, non_blocking, False)

    def record_stream(self, stream):
        if not isinstance(stream, cuda.Stream):
            raise TypeError("record_stream(): argument 's' (position 1) must be Stream, not "
                            + type(stream).__name__)
        if not self.is_cuda:
            raise RuntimeError("record_stream() expected a CUDA tensor")
        self._record_stream(stream._id)

    # creation from self
    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False):
        return empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                     requires_grad=requires_grad, pin_memory=pin_memory)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False):
        return self.new_empty(*size, dtype=dtype, device=device, requires_grad=requires_grad,
                              pin_memory=pin_memory).fill_(0)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False):
        return self.new_empty(*size, dtype=dtype, device=device, requires_grad=requires_grad,
                              pin_memory=pin_memory).fill_(1)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False, pin_memory=False):
        return self.new_empty(size, dtype=dtype, device=device, requires_grad=requires_grad,
                              pin_memory=pin_memory).fill_(fill_value)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False, pin_memory=False):
        return tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                      requires_grad=requires_grad, pin_memory=pin_memory)

    def zero_(self):
        return self.fill_(0)

    # views
    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], dtype):
            return _ops_more.view_dtype(self, shape[0])
        return self._view(_shape_arg(shape))

    def reshape(self, *shape):
        # a view whenever ATen's computeStride finds strides for one, else a copy
        shape = _shape_arg(shape)
        try:
            return self._reshape_alias(shape)
        except RuntimeError as e:
            if not str(e).startswith("view size is not compatible"):
                raise
        return self.contiguous()._unsafe_view(shape)

    def view_as(self, other):
        return self.view(other.shape)

    def expand(self, *shape):
        return self._expand(_shape_arg(shape))

    def expand_as(self, other):
        return self._expand(tuple(other.shape))

    def t(self):
        if self.dim() > 2:
            raise RuntimeError("t() expects a tensor with <= 2 dimensions, but self is %dD" % self.dim())
        return self._t_matrix() if self.dim() == 2 else self

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(self._shape[0]))

    def __getitem__(self, index):
        return _indexing.getitem(self, index)

    def __setitem__(self, index, value):
        _indexing.setitem(self, index, value)

    # id(self), as PyTorch's; computed by the C base (no Python frame)
    __hash__ = _C.TensorBase.__hash__

    def numpy(self, *args, force=False):
        if args:
            raise TypeError("numpy() takes 0 positional arguments but %d %s given"
                            % (len(args), "was" if len(args) == 1 else "were"))
        return _numpy.to_numpy(self, force)

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        a = a if dtype is None else a.astype(dtype, copy=False)
        return a.copy() if copy and a.base is not None else a  # NumPy 2 may ask for a copy

    # NumPy defers to tensors in mixed arithmetic, and a ufunc of a tensor
    # (np.exp(t)) gives a tensor back, as in PyTorch.
    __array_priority__ = 1000

    def __array_wrap__(self, array, *context):
        if array.dtype == _builtins.bool:
            array = array.astype("uint8")
        return from_numpy(array)

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # __repr__ and __str__ are torch._C.TensorBase's (ts-tensor-format.c)

    def __reduce_ex__(self, proto):
        return (tensor, (self.tolist(), self.dtype, self.device))

    # math with names
    # with alpha, PyTorch's one kernel where no graph is recorded (an
    # optimizer's update); otherwise other * alpha first, whose node
    # carries alpha into the gradient
    def add(self, other, alpha=1):
        if alpha != 1:
            fused = _C._add_alpha(self, other, _builtins.float(alpha), False, False) if isinstance(alpha, _NUMBERS) else None
            return fused if fused is not None else self + other * alpha
        return self + other

    def add_(self, other, alpha=1):
        if alpha != 1:
            if isinstance(alpha, _NUMBERS) and _C._add_alpha(self, other, _builtins.float(alpha), False, True) is not None:
                return self
            other = other * alpha
        self += other
        return self

    def sub(self, other, alpha=1):
        if alpha != 1:
            fused = _C._add_alpha(self, other, _builtins.float(alpha), True, False) if isinstance(alpha, _NUMBERS) else None
            return fused if fused is not None else self - other * alpha
        return self - other

    def sub_(self, other, alpha=1):
        if alpha != 1:
            if isinstance(alpha, _NUMBERS) and _C._add_alpha(self, other, _builtins.float(alpha), True, True) is not None:
                return self
            other = other * alpha
        self -= other
        return self

    def mul(self, other):
        return self * other

    def mul_(self, other):
        self *= other
        return self

    def div(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return self / other
        return _C._div_mode(self, other, _rounding_floor(rounding_mode), False)

    def div_(self, other, *, rounding_mode=None):
        if rounding_mode is not None:
            return _C._div_mode(self, other, _rounding_floor(rounding_mode), True)
        self /= other
        return self

    def matmul(self, other):
        return self @ other

    def mm(self, other):
        return self @ other

    def pow(self, e):
        return self ** e

    def __lshift__(self, other):
        return self.bitwise_left_shift(other)

    def __rshift__(self, other):
        return self.bitwise_right_shift(other)

    def __ilshift__(self, other):
        return self.bitwise_left_shift_(other)

    def __irshift__(self, other):
        return self.bitwise_right_shift_(other)

    def eq(self, o):
        return self == o

    def ne(self, o):
        return self != o

    def lt(self, o):
        return self < o

    def le(self, o):
        return self <= o

    def gt(self, o):
        return self > o

    def ge(self, o):
        return self >= o

    def neg(self):
        return -self

    def abs(self):
        return _C.TensorBase.__abs__(self)

    # exp, log, ..., maximum, minimum: TensorBase's, from the op table

    def max(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return self.maximum(dim)
        r = self._max(dim, keepdim, False)
        return r if dim is None else return_types.max(r)

    def min(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return self.minimum(dim)
        r = self._max(dim, keepdim, True)
        return r if dim is None else return_types.min(r)

    def all(self):
        return (self != 0).sum() == self.numel()

    def any(self):
        return (self != 0).sum() > 0

    def equal(self, other):
        return _C._equal(self, other)

    def type_as(self, other):
        return self if self.dtype == other.dtype else self._to(None, other.dtype, False, False)


def _conversion(name, dt):
    """Tensor.float(), .double(), ...: self converted to dtype dt, no
    copy made when it already has it."""
    def convert(self):
        # PyTorch hands back self itself (t.float() is t for a float32 t)
        return self if self.dtype == dt else self._to(None, dt, False, False)
    convert.__name__ = convert.__qualname__ = name
    return convert


for _name, _dt in (("float", float32), ("double", float64), ("half", float16), ("bfloat16", bfloat16),
                   ("long", int64), ("int", int32), ("short", int16), ("char", int8), ("byte", uint8),
                   ("bool", bool)):
    setattr(Tensor, _name, _conversion(_name, _dt))
del _name, _dt


_CPU = device("cpu")


def _is_size(obj):
    return isinstance(obj, Size)


def _is_data(obj):
    """The legacy constructors' one argument that is data, not a size."""
    return isinstance(obj, (list, tuple)) and not _is_size(obj) or _numpy.is_ndarray(obj)


class return_types:
    class _MaxMin(tuple):
        _name = "max"

        def __new__(cls, pair):
            return tuple.__new__(cls, pair)

        @property
        def values(self):
            return self[0]

        @property
        def indices(self):
            return self[1]

        def __repr__(self):
            return "torch.return_types.%s(\nvalues=%r,\nindices=%r)" % (self._name, self[0], self[1])

    class max(_MaxMin):
        _name = "max"

    class min(_MaxMin):
        _name = "min"


Tensor.__module__ = "torch"

from . import _indexing  # noqa: E402


# indexing with names: Tensor methods and torch functions alike
for _name in ("index_put_", "index_put", "masked_fill_", "masked_fill", "masked_scatter_", "masked_scatter",
              "masked_select", "take", "put_", "nonzero"):
    setattr(Tensor, _name, getattr(_indexing, _name))
    if not _name.endswith("_"):
        globals()[_name] = getattr(_indexing, _name)
del _name

# creation ---------------------------------------------------------------------


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad = True
    return t


def _factory_out(name, shape, dtype, out, requires_grad):
    """A factory's out=: out, resized to shape (PyTorch's factories write
    their values into it, of its dtype and on its device)."""
    return _out.factory(name, shape, dtype, out, requires_grad)


def _strided_only(layout):
    # sparse and other layouts are not modeled: never a dense tensor instead
    if layout is not None and repr(layout) != "torch.strided":
        raise _unmodeled.unsupported("a tensor of layout %r" % (layout,))


def empty(*size, dtype=None, device=None, requires_grad=False, pin_memory=False, out=None,
          layout=None, memory_format=None):
    _strided_only(layout)
    if out is not None:
        return _factory_out("empty", _shape_arg(size), dtype, out, requires_grad)
    return _finish(_C._empty(_shape_arg(size), dtype or _default_dtype, _factory_device(device),
                             pin_memory), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, pin_memory=False, out=None, layout=None):
    _strided_only(layout)
    if out is not None:
        return _factory_out("zeros", _shape_arg(size), dtype, out, requires_grad).fill_(0)
    return _finish(empty(*size, dtype=dtype, device=device, pin_memory=pin_memory).fill_(0), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, pin_memory=False, out=None, layout=None):
    _strided_only(layout)
    if out is not None:
        return _factory_out("ones", _shape_arg(size), dtype, out, requires_grad).fill_(1)
    return _finish(empty(*size, dtype=dtype, device=device, pin_memory=pin_memory).fill_(1), requires_grad)


def _scalar_dtype(v):
    if isinstance(v, _builtins.bool):
        return bool
    if isinstance(v, _builtins.int):
        return int64
    if isinstance(v, _builtins.complex):
        return _default_complex_dtype()
    return _default_dtype


def _default_complex_dtype():
    return complex128 if _default_dtype is float64 else complex64


def full(size, fill_value, dtype=None, device=None, requires_grad=False, pin_memory=False, out=None,
         layout=None):
    _strided_only(layout)
    if out is not None:
        return _factory_out("full", _shape_arg((size,)), dtype, out, requires_grad).fill_(fill_value)
    dt = dtype or _scalar_dtype(fill_value)
    return _finish(empty(size, dtype=dt, device=device, pin_memory=pin_memory).fill_(fill_value),
                   requires_grad)


def empty_like(t, dtype=None, device=None, requires_grad=False, memory_format=None, pin_memory=False):
    device = t.device if device is None else _device_arg(device)
    return _finish(_C._empty(t._shape, dtype or t.dtype, device, pin_memory), requires_grad)


def zeros_like(t, dtype=None, device=None, requires_grad=False, memory_format=None):
    return empty_like(t, dtype=dtype, device=device, requires_grad=requires_grad).fill_(0)


def ones_like(t, dtype=None, device=None, requires_grad=False, memory_format=None):
    return empty_like(t, dtype=dtype, device=device, requires_grad=requires_grad).fill_(1)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None):
    return empty_like(t, dtype=dtype, device=device, requires_grad=requires_grad).fill_(fill_value)


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None, pin_memory=False, out=None):
    if out is not None:
        return _factory_out("rand", _shape_arg(size), dtype, out, requires_grad).uniform_(0, 1, generator=generator)
    return _finish(empty(*size, dtype=dtype, device=device, pin_memory=pin_memory)
                   .uniform_(0, 1, generator=generator), requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None, pin_memory=False, out=None):
    if out is not None:
        return _factory_out("randn", _shape_arg(size), dtype, out, requires_grad).normal_(0, 1, generator=generator)
    t = empty(*size, dtype=dtype, device=device, pin_memory=pin_memory)
    if t.dtype.is_complex:
        # PyTorch's normal_ of a complex tensor: both parts, std / sqrt(2)
        view_as_real(t).normal_(0, 0.5 ** 0.5, generator=generator)
        return _finish(t, requires_grad)
    return _finish(t.normal_(0, 1, generator=generator), requires_grad)


# arange's own warning when out's size differs (RangeFactories.cpp)
_ARANGE_RESIZED = ("The number of elements in the out tensor of shape [%s] is %d which does not match the computed "
                   "number of elements %d. Note that this may occur as a result of rounding error. The out tensor "
                   "will be resized to a tensor of shape (%d,). (Triggered internally at  "
                   "./aten/src/ATen/native/RangeFactories.cpp:188.)")


def _range_out(name, values, dtype, out, requires_grad):
    """arange/linspace(..., out=): values, computed in out's dtype on its
    device, copied into out (arange warns when out had another size)."""
    out = _out.factory(name, out.shape, dtype, out, requires_grad)
    if out.numel() != values.numel():
        if name == "arange" and out.numel():
            _out.warn_user(_ARANGE_RESIZED % (", ".join(map(str, out.shape)), out.numel(), values.numel(),
                                              values.numel()))
        _out.resize_(out, values.shape)
    else:
        values = values.reshape(out.shape)  # the same count: out keeps its shape
    return out.copy_(values)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False, out=None):
    if end is None:
        start, end = 0, start
    if out is not None:
        values = arange(start, end, step, dtype=out.dtype, device=out.device)
        return _range_out("arange", values, dtype, out, requires_grad)
    if dtype is None:
        ints = _builtins.all(isinstance(v, _builtins.int) for v in (start, end, step))
        dtype = int64 if ints else _default_dtype
    return _finish(_C._arange(_builtins.float(start), _builtins.float(end), _builtins.float(step),
                              dtype, _factory_device(device)), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if out is not None:
        values = linspace(start, end, steps, dtype=out.dtype, device=out.device)
        return _range_out("linspace", values, dtype, out, requires_grad)
    return _finish(_C._linspace(_builtins.float(start), _builtins.float(end), steps,
                                dtype or _default_dtype, _factory_device(device)), requires_grad)


def _infer(data, shape, flat, depth=0):
    if isinstance(data, Tensor):
        if data.dim() == 0:
            flat.append(data.item())
            return data.dtype
        data = data.tolist()
    if type(data).__module__ == "numpy":
        # a NumPy scalar or array: its Python numbers, of its dtype
        kind = _infer(data.tolist(), shape, flat, depth)
        return _numpy._FROM_NUMPY.get(data.dtype.name, kind)
    if isinstance(data, (list, tuple)):
        n = len(data)
        if len(shape) <= depth:
            shape.append(n)
        elif shape[depth] != n:
            raise ValueError("expected sequence of length %d at dim %d (got %d)" % (shape[depth], depth, n))
        kinds = None
        for item in data:
            k = _infer(item, shape, flat, depth + 1)
            kinds = k if kinds is None else _promote_kind(kinds, k)
        if n == 0 and kinds is None:
            return None
        return kinds
    if isinstance(data, (_builtins.bool, _builtins.int, _builtins.float, _builtins.complex)):
        if len(shape) > depth:
            raise ValueError("expected sequence of length %d at dim %d (got 0)" % (shape[depth], depth))
        flat.append(data)
        return _scalar_dtype(data)
    raise TypeError("new(): invalid data type '%s'" % type(data).__name__)


def _promote_kind(a, b):
    if a is None:
        return b
    if b is None:
        return a
    order = {bool: 0, uint8: 1, int8: 1, int16: 1, int32: 1, int64: 1}
    if a.is_complex or b.is_complex:
        return a if a.is_complex else b
    if a.is_floating_point or b.is_floating_point:
        return a if a.is_floating_point else b
    return a if order.get(a, 1) >= order.get(b, 1) else b


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if isinstance(data, Tensor) or hasattr(data, "__cuda_array_interface__"):
        t = as_tensor(data).clone()
        device = _factory_device(device)
        if dtype is not None or device is not None:
            t = t.to(device=device, dtype=dtype)
        return _finish(t, requires_grad)
    if _numpy.is_ndarray(data):
        return _finish(_numpy.tensor(data, dtype, device), requires_grad)
    shape, flat = [], []
    kind = _infer(data, shape, flat)
    dt = dtype or kind or _default_dtype
    t = _C._from_flat(flat, tuple(shape), dt, _factory_device(device))
    if pin_memory:
        t = t.pin_memory()
    return _finish(t, requires_grad)


# numpy's typestrs (__cuda_array_interface__'s "typestr") that map to a dtype
_TYPESTRS = {
    "<f4": float32, "<f8": float64, "<f2": float16, "<i8": int64, "<i4": int32,
    "<i2": int16, "|i1": int8, "<i1": int8, "|u1": uint8, "<u1": uint8, "|b1": bool, "<b1": bool,
}


def _from_cuda_array_interface(obj):
    """A CUDA tensor over the memory obj describes, which it views and does
    not own (PyTorch's tensor_from_cuda_array_interface, its checks and
    messages). Nothing keeps that memory alive: a kernel that runs after it
    was freed and released fails with an illegal memory access."""
    desc = obj.__cuda_array_interface__
    if not isinstance(desc, dict):
        raise TypeError("`__cuda_array_interface__` must be a dict")
    if "shape" not in desc:
        raise TypeError("attribute `shape` must exist")
    shape = desc["shape"]
    if not isinstance(shape, tuple):
        raise TypeError("shape must be a tuple")
    if "typestr" not in desc:
        raise TypeError("attribute `typestr` must exist")
    typestr = desc["typestr"]
    if typestr not in _TYPESTRS:
        raise TypeError("data type %r not understood" % (typestr,))
    dt = _TYPESTRS[typestr]
    if "data" not in desc:
        raise TypeError("attribute `shape` data exist")
    data = desc["data"]
    if not isinstance(data, tuple) or len(data) != 2:
        raise TypeError("`data` must be a 2-tuple of (int, bool)")
    ptr = data[0] or 0
    if data[1]:
        raise TypeError("the read only flag is not supported, should always be False")
    strides = desc.get("strides")
    if strides is not None:
        if len(strides) != len(shape):
            raise TypeError("strides must be a sequence of the same length as shape")
        for st in strides:
            if st % dt.itemsize != 0:
                raise ValueError("given array strides not a multiple of the element byte size. "
                                 "Make a copy of the array to reuse memory.")
        strides = tuple(st // dt.itemsize for st in strides)
    else:
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= n
        strides = tuple(strides)
    # "stream" (version 3) asks the consumer to order its work after that
    # stream; PyTorch does not, and neither does this.
    return _C._from_cuda_pointer(ptr, shape, strides, dt)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        if dtype is None and device is None:
            return data
        return data.to(device=device, dtype=dtype)
    if hasattr(data, "__cuda_array_interface__"):
        t = _from_cuda_array_interface(data)
        if dtype is not None or device is not None:
            t = t.to(device=device, dtype=dtype)
        return t
    if _numpy.is_ndarray(data):
        return _numpy.as_tensor(data, dtype, device)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(arr):
    return _numpy.from_numpy(arr)


# functions over tensors ----------------------------------------------------------


def sum(input, dim=None, keepdim=False, dtype=None):
    return input.sum(dim, keepdim, dtype)


def mean(input, dim=None, keepdim=False, dtype=None):
    return input.mean(dim, keepdim, dtype)


def max(input, dim=None, keepdim=False):
    return input.max(dim, keepdim)


def min(input, dim=None, keepdim=False):
    return input.min(dim, keepdim)


def equal(a, b):
    return _C._equal(a, b)


def matmul(a, b):
    return a @ b


mm = matmul


def _alpha_out(name, a, b, alpha, out):
    """add/sub with out=: without alpha, the op table's direct form (one
    kernel into out); with it, out= by torch._out's generic rules."""
    if alpha == 1:
        return _slot_ops[name](a, b, out=out)
    # one kernel into out where the fused form applies (out of a's layout)
    if isinstance(alpha, _NUMBERS) and isinstance(out, Tensor) and \
            _C._add_alpha(a, b, _builtins.float(alpha), name == "sub", out) is not None:
        return out
    return _out.run(name, getattr(Tensor, name), (a, b), {"alpha": alpha}, out)


def add(input, other, *, alpha=1, out=None):
    if out is not None:
        return _alpha_out("add", input, other, alpha, out)
    return input.add(other, alpha=alpha)


def sub(input, other, *, alpha=1, out=None):
    if out is not None:
        return _alpha_out("sub", input, other, alpha, out)
    return input.sub(other, alpha=alpha)


def mul(input, other, *, out=None):
    if out is not None:
        return _slot_ops["mul"](input, other, out=out)
    return input * other


def _rounding_floor(rounding_mode):
    """Whether torch.div's rounding_mode (not None) is "floor", else
    "trunc"; ATen's check otherwise."""
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'"
                           % rounding_mode)
    return rounding_mode == "floor"


def div(input, other, *, rounding_mode=None, out=None):
    if rounding_mode is not None:
        floor_mode = _rounding_floor(rounding_mode)
        if out is not None:
            import torch._out
            return torch._out.run("div", lambda a, b: _C._div_mode(a, b, floor_mode, False), (input, other), {}, out)
        return _C._div_mode(input, other, floor_mode, False)
    if out is not None:
        return _slot_ops["div"](input, other, out=out)
    return input / other




# torch.exp, torch.maximum, ...: one builtin per op of the op table
# (ts-op-list.def) that Python reaches by name
globals().update(_C._op_functions)

# The ops Python reaches through a number slot or a comparison, by name
# too: torch.remainder (input, other, *, out=None), ...; their in-place
# forms (Tensor.remainder_, ...) are torch._C.TensorBase's.
_slot_ops = _C._slot_op_functions
floor_divide = _slot_ops["floor_divide"]
abs = _slot_ops["abs"]
neg = _slot_ops["neg"]
bitwise_and = _slot_ops["bitwise_and"]
bitwise_or = _slot_ops["bitwise_or"]
bitwise_xor = _slot_ops["bitwise_xor"]
eq = _slot_ops["eq"]
ne = _slot_ops["ne"]
lt = _slot_ops["lt"]
le = _slot_ops["le"]
gt = _slot_ops["gt"]
ge = _slot_ops["ge"]


def _with_scalar_self(name, reflected):
    """torch.pow (2, t) and torch.remainder (2, t): PyTorch's Scalar self
    overloads, which compute as `2 ** t` and `2 % t` do."""
    op = _slot_ops[name]

    def f(input, other, *, out=None):
        if not isinstance(input, Tensor) and isinstance(other, Tensor):
            if out is None:
                return reflected(other, input)
            return _out.run(name, reflected, (other, input), {}, out)
        if out is not None and name == "pow" and not isinstance(other, Tensor):
            # pow with a scalar exponent keeps the dtype: out must have it
            _out.same(name, result_type(input, other), out, input)
        return op(input, other, out=out)
    f.__name__ = f.__qualname__ = name
    return f


pow = _with_scalar_self("pow", Tensor.__rpow__)
remainder = _with_scalar_self("remainder", Tensor.__rmod__)


def _softmax(input, dim, dtype, log):
    """softmax and log_softmax (torch.*, Tensor.*, F.*): dtype= casts the
    input first, as PyTorch's does."""
    if dtype is None:
        return input._softmax(dim, log)
    input = input.to(dtype)
    # an explicit dtype is the caller's: autocast leaves it (docs/amp.md)
    excluded = _C._autocast_set_excluded(True)
    try:
        return input._softmax(dim, log)
    finally:
        _C._autocast_set_excluded(excluded)


def softmax(input, dim, dtype=None):
    if dtype is None:
        return input._softmax(dim, False)
    return _softmax(input, dim, dtype, False)


def log_softmax(input, dim, dtype=None):
    if dtype is None:
        return input._softmax(dim, True)
    return _softmax(input, dim, dtype, True)


Tensor.softmax = softmax
Tensor.log_softmax = log_softmax


def _clamp(input, min, max, out, inplace):
    """clamp/clip with a tensor bound, one bound, out= or in place:
    clamp_min, then clamp_max (two ops where PyTorch runs one, with the
    same values and dtype). Two number bounds on a float32 or float64
    tensor are one launch (_C._clamp, in clamp())."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if inplace:
        if min is not None:
            input.clamp_min_(min)
        return input if max is None else input.clamp_max_(max)
    if max is None:
        return clamp_min(input, min, out=out)
    if min is not None:
        input = clamp_min(input, min)
    return clamp_max(input, max, out=out)


def clamp(input, min=None, max=None, *, out=None):
    if out is None:
        r = _C._clamp(input, min, max)
        if r is not None:
            return r
    return _clamp(input, min, max, out, False)


def clamp_(input, min=None, max=None):
    return _clamp(input, min, max, None, True)


clip = clamp
clip_ = clamp_


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """PyTorch's composite isclose, op for op: |input - other| <=
    atol + rtol * |other|, where finite, or equal."""
    if input.dtype != other.dtype:
        raise RuntimeError("%s did not match %s" % (_LEGACY_NAMES[input.dtype][:-6],
                                                    _LEGACY_NAMES[other.dtype][:-6]))
    if rtol < 0:
        raise RuntimeError("rtol must be greater than or equal to zero, but got %s" % _fmt_double(rtol))
    if atol < 0:
        raise RuntimeError("atol must be greater than or equal to zero, but got %s" % _fmt_double(atol))
    close = input == other
    if equal_nan and input.dtype.is_floating_point:
        close |= input.isnan().logical_and_(other.isnan())
    if rtol == 0 and atol == 0:
        return close
    if input.dtype == bool:
        input, other = input.to(get_default_dtype()), other.to(get_default_dtype())
    allowed_error = atol + (rtol * other).abs()
    actual_error = (input - other).abs()
    close |= isfinite(actual_error).logical_and_(actual_error <= allowed_error)
    return close


def _fmt_double(v):
    # c10's printing of a double: the shortest of %g's forms
    return "%g" % v


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _builtins.bool(isclose(input, other, rtol, atol, equal_nan).all().item())


Tensor.isclose = isclose
Tensor.allclose = allclose
Tensor.clamp = Tensor.clip = clamp
Tensor.clamp_ = Tensor.clip_ = clamp_


def index_select(input, dim, index):
    return input.index_select(dim, index)


# the C method itself: torch.gather(input, dim, index, *, sparse_grad=False)
gather = _C.TensorBase.gather


def transpose(input, dim0, dim1):
    return input.transpose(dim0, dim1)


def reshape(input, shape):
    return input.reshape(shape)


def unsqueeze(input, dim):
    return input.unsqueeze(dim)


def clone(input):
    return input.clone()


def numel(input):
    return input.numel()


# random ------------------------------------------------------------------------


def _seed_arg(seed):
    # PyTorch reads a negative seed as the uint64 with the same bits
    return _builtins.int(seed) & 0xFFFFFFFFFFFFFFFF


def manual_seed(seed):
    seed = _builtins.int(seed)
    _C._rng_manual_seed(-1, _seed_arg(seed))
    cuda.manual_seed_all(seed)
    return default_generator


def seed():
    s = _C._rng_seed(-1)
    cuda.manual_seed_all(s)
    return s


def initial_seed():
    return _C._rng_initial_seed(-1)


def _check_rng_state(state):
    if not isinstance(state, Tensor):
        raise TypeError("expected a torch.ByteTensor, but got " + type(state).__name__)
    if state.dtype != uint8 or state.device.type != "cpu":
        raise TypeError("RNG state must be a torch.ByteTensor")


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


class Generator:
    """A random number generator: the CPU ones are PyTorch's mt19937
    CPUGeneratorImpl (default_generator is the one torch.manual_seed
    seeds); a CUDA one stands for its device's Philox generator."""

    def __init__(self, device="cpu", _cpu_id=None):
        self.device = _device_arg(device)
        if self.device.type == "cpu":
            self._cpu_id = _C._rng_cpu_generator_new() if _cpu_id is None else _cpu_id
            self._rng = self._cpu_id
        else:
            self._cpu_id = -1
            self._rng = self.device.index if self.device.index is not None else 0

    def manual_seed(self, seed):
        _C._rng_manual_seed(self._rng, _seed_arg(seed))
        return self

    def seed(self):
        return _C._rng_seed(self._rng)

    def initial_seed(self):
        return _C._rng_initial_seed(self._rng)

    def get_state(self):
        return tensor(list(_C._rng_get_state(self._rng)), dtype=uint8)

    def set_state(self, new_state):
        _check_rng_state(new_state)
        _C._rng_set_state(self._rng, bytes(new_state.tolist()))
        return self


default_generator = Generator(_cpu_id=-1)


def is_grad_enabled():
    return _C.is_grad_enabled()


def is_inference_mode_enabled():
    return _C.is_inference_mode_enabled()


def is_inference(input):
    return input.is_inference()


# PyTorch's global flags. The kernels do not read them yet (see torch.backends).
_deterministic = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(value, _builtins.bool):
            raise TypeError("_set_deterministic_algorithms(): argument '%s'%s must be bool, not %s"
                            % (name, " (position 1)" if name == "mode" else "", type(value).__name__))
    _deterministic.update(mode=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled():
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic["warn_only"]


def set_float32_matmul_precision(precision):
    """Whether float32 matmuls may use TF32: not with "highest", with "high"
    and "medium" (backends.cuda.matmul.allow_tf32 is this setting); the
    simulator times them at the GPU's TF32 rate then."""
    if not isinstance(precision, str):
        raise RuntimeError("set_float32_matmul_precision expects a str, but got " + type(precision).__name__)
    if precision not in ("highest", "high", "medium"):
        import warnings
        warnings.warn(precision + " is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.")
        return
    backends.cuda._set_float32_matmul_precision(precision)


def get_float32_matmul_precision():
    return backends.cuda._float32_matmul_precision


# legacy typed constructors --------------------------------------------------------

_LEGACY_NAMES = {
    float32: "FloatTensor", float64: "DoubleTensor", float16: "HalfTensor",
    bfloat16: "BFloat16Tensor", int64: "LongTensor", int32: "IntTensor",
    uint8: "ByteTensor", bool: "BoolTensor", int8: "CharTensor", int16: "ShortTensor",
}


def _legacy_class(dt, on_cuda):
    def __new__(cls, *args, device=None):
        if on_cuda:
            dev = device or globals()["device"]("cuda", cuda.current_device())
        else:
            dev = device
        if len(args) == 1 and _is_data(args[0]):
            return tensor(args[0], dtype=dt, device=dev)
        return _C._empty(_shape_arg(args) if args else (0,), dt, _device_arg(dev))

    class _Meta(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, Tensor) and obj.dtype is dt and obj.is_cuda == on_cuda

    name = _LEGACY_NAMES[dt]
    return _Meta(name, (), {"__new__": __new__, "dtype": dt, "is_cuda": on_cuda,
                            "__module__": "torch.cuda" if on_cuda else "torch"})


for _dt, _name in _LEGACY_NAMES.items():
    globals()[_name] = _legacy_class(_dt, False)

import os as _os
_C._set_classes(Tensor, device, _dtypes, _os.path.dirname(_os.path.abspath(__file__)) + _os.sep, Size)
del _os

from . import autograd  # noqa: E402
is_anomaly_enabled = _C._is_anomaly_enabled
is_anomaly_check_nan_enabled = _C._is_anomaly_check_nan_enabled
set_anomaly_enabled = _C._set_anomaly_enabled
from .autograd import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: E402,F401
from . import backends  # noqa: E402
from . import _numpy  # noqa: E402
from . import cuda  # noqa: E402
from . import nn  # noqa: E402
from . import utils  # noqa: E402
from . import optim  # noqa: E402
from .nn import utils as _nn_utils  # noqa: E402,F401
from .cuda import Stream, Event  # noqa: E402,F401
from .nn.parameter import Parameter  # noqa: E402,F401


def _install_names(g, methods=(), functions=()):
    """Binds the functions a Python op module defines (g: its globals) by
    name, as Tensor methods and as torch functions."""
    for name in methods:
        setattr(Tensor, name, g[name])
    for name in functions:
        setattr(_sys.modules[__name__], name, g[name])


# ops batch A (#14): shape ops, reductions over dims, sorting, scatter
from . import _shape, _matmul, _reduce, _sort  # noqa: E402
_shape._install()
_matmul._install()
_reduce._install()
_sort._install()
# torch.save / torch.load in PyTorch's format (#16)
from . import storage, _utils, _tensor, serialization  # noqa: E402
from .serialization import save, load  # noqa: E402,F401
from ._compile import compile  # noqa: E402,F401
from . import jit, compiler  # noqa: E402,F401

# mixed precision (#16): autocast's state is the core's (docs/amp.md)
from . import amp  # noqa: E402
from .cuda import amp as _cuda_amp  # noqa: E402,F401
from . import cpu  # noqa: E402,F401
from .amp import autocast  # noqa: E402,F401


def is_autocast_enabled():
    return _C._autocast_is_enabled("cuda")


def set_autocast_enabled(enabled):
    _C._autocast_set_enabled("cuda", enabled)


def get_autocast_gpu_dtype():
    return _C._autocast_get_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    _C._autocast_set_dtype("cuda", dtype)


def is_autocast_cpu_enabled():
    return _C._autocast_is_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _C._autocast_set_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    return _C._autocast_get_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _C._autocast_set_dtype("cpu", dtype)


is_autocast_cache_enabled = _C._autocast_is_cache_enabled
set_autocast_cache_enabled = _C._autocast_set_cache_enabled
clear_autocast_cache = _C._autocast_clear_cache
autocast_increment_nesting = _C._autocast_increment_nesting
autocast_decrement_nesting = _C._autocast_decrement_nesting
# GradScaler's kernels, ops of the op table (ts-ops-amp.c)
_amp_foreach_non_finite_check_and_unscale_ = _C._amp_foreach_non_finite_check_and_unscale_
from torch._foreach import *  # noqa: E402,F401,F403 (torch._foreach_add_ and the others)
_amp_update_scale_ = _C._amp_update_scale_
from . import _ops_more  # noqa: E402
_ops_more._install()
from . import _ops_composite  # noqa: E402
_ops_composite._install()
from . import _memory_format  # noqa: E402
_memory_format._install()
from . import _runtime_misc  # noqa: E402
_runtime_misc._install()
from . import _complex  # noqa: E402
_complex._install()
# out= (#14): last, over the functions the modules above bound
from . import _out  # noqa: E402
_out.install()

for _dt, _name in _LEGACY_NAMES.items():
    setattr(cuda, _name, _legacy_class(_dt, True))
del _dt, _name

OutOfMemoryError = _C.OutOfMemoryError

from ._tensor_str import set_printoptions  # noqa: E402,F401
from . import version  # noqa: E402,F401

# torch.profiler reads the run's own trace back (profiler/_events.py)
from . import profiler  # noqa: E402,F401
from .autograd import profiler as _autograd_profiler  # noqa: E402,F401

from . import distributions, testing  # noqa: E402,F401

# What PyTorch has and Tensorscope does not model yet says so by name.
__getattr__ = _unmodeled.module_getattr(__name__)
for _name in ("distributed", "fx", "onnx",
              "special", "sparse", "func", "hub",
              "quantization", "ao", "export",
              "multiprocessing", "library", "masked", "nested", "futures", "mps", "overrides"):
    _unmodeled.skeleton("torch." + _name)
del _name
_unmodeled.install_finder()

# As PyTorch: the variable's presence (any value) turns CSAN on.
import os as _os  # noqa: E402
if "TORCH_CUDA_SANITIZER" in _os.environ:
    from .cuda import _sanitizer as _csan
    _csan.enable_cuda_sanitizer()
    del _csan
del _os
