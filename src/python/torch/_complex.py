"""Complex tensors: .real and .imag, view_as_real and view_as_complex
(views of the same storage, ts-py-complex.c), torch.complex, torch.polar,
conj, and the predicates.

PyTorch's conj() is lazy: it returns a view with the conjugate bit set,
which the kernels that read it resolve. Tensorscope has no conjugate bit:
conj() of a complex tensor is conj_physical(), a copy (an aten::conj_physical
kernel on the timeline where PyTorch shows a free aten::conj view), so
writing through it does not reach the original and is_conj() is False."""

import torch
from torch import _C, Tensor

_FLOATS = (torch.float16, torch.float32, torch.float64)


def _name(dt):
    return torch._shape._SCALAR_NAMES[dt._name]


def _real(self):
    if not self.dtype.is_complex:
        return self
    return _C._complex_part(self, False)


def _imag(self):
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _C._complex_part(self, True)


def _set_part(part):
    def setter(self, value):
        part(self).copy_(value if isinstance(value, Tensor) else torch.tensor(value))
    return setter


def real(input):
    return _real(input)


def imag(input):
    return _imag(input)


def view_as_real(input):
    return _C._view_as_real(input)


def view_as_complex(input):
    return _C._view_as_complex(input)


def is_complex(input):
    return input.dtype.is_complex


def conj(input):
    return input.conj_physical() if input.dtype.is_complex else input


def resolve_conj(input):
    return input


def is_conj(input):
    return False


def _check_parts(a, b):
    """complex() and polar(): PyTorch's complex_check_dtype, then
    TensorIterator's same-dtype check"""
    if a.dtype not in _FLOATS or b.dtype not in _FLOATS:
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got %s and %s"
                           % (_name(a.dtype), _name(b.dtype)))
    if a.dtype is not b.dtype:
        raise RuntimeError("Expected object of scalar type %s but got scalar type %s for second argument"
                           % (_name(a.dtype), _name(b.dtype)))
    if a.dtype is torch.float16:
        raise torch._unmodeled.unsupported("complex32 (torch.chalf) tensors", "complex64 and complex128 are")
    if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad):
        raise NotImplementedError("torch.complex and torch.polar of tensors that require grad: autograd of complex "
                                  "tensors is not modeled by Tensorscope yet; run them under torch.no_grad() or on "
                                  "detached tensors")


def _from_parts(re, im, out):
    """A complex tensor of the broadcast shape whose parts are re and im:
    two copies (PyTorch's one aten::complex or aten::polar kernel)"""
    shape = torch.broadcast_shapes(re.shape, im.shape)
    dt = torch.complex64 if re.dtype is torch.float32 else torch.complex128
    if out is None:
        out = torch.empty(shape, dtype=dt, device=re.device)
    elif out.dtype is not dt:
        raise RuntimeError("Expected object of scalar type %s but got scalar type %s for argument 'out'"
                           % (_name(dt), _name(out.dtype)))
    _real(out).copy_(re)
    _imag(out).copy_(im)
    return out


def complex(real, imag, *, out=None):
    _check_parts(real, imag)
    return _from_parts(real, imag, out)


def polar(abs, angle, *, out=None):
    _check_parts(abs, angle)
    return _from_parts(abs * angle.cos(), abs * angle.sin(), out)


def _install():
    import importlib
    torch._install_names(globals(), functions=("real", "imag", "view_as_real", "view_as_complex",
                                                "is_complex", "conj", "resolve_conj", "is_conj", "complex",
                                                "polar"))
    Tensor.real = property(_real, _set_part(_real))
    Tensor.imag = property(_imag, _set_part(_imag))
    for name in ("conj", "resolve_conj", "is_conj", "is_complex"):
        setattr(Tensor, name, globals()[name])
    Tensor.__complex__ = lambda self: builtin_complex(self.item())
    torch.fft = importlib.import_module("torch.fft")
    from torch.backends import cuda as backends_cuda
    for name in ("_cufft_get_plan_cache_size", "_cufft_get_plan_cache_max_size", "_cufft_set_plan_cache_max_size",
                 "_cufft_clear_plan_cache"):
        setattr(torch, name, getattr(backends_cuda, name))


builtin_complex = __builtins__["complex"] if isinstance(__builtins__, dict) else __builtins__.complex
