"""torch.fft: PyTorch's SpectralOps.cpp over the three ATen kernels
aten::_fft_c2c, _fft_r2c and _fft_c2r (torch._C._fft, ts-ops-fft.c, FFTW).

As in PyTorch: real inputs go through r2c (fft and ifft of a real tensor
ask r2c for the two-sided spectrum), integers are promoted to the default
dtype, n and s trim (a view) or zero-pad (a copy) the input first, and
the inverse of a real transform is the conjugate of the forward one. The
normalization is PyTorch's fft_norm_mode: "backward" (the default)
scales the inverse by 1/n, "forward" the forward one, "ortho" both by
1/sqrt(n). On a CUDA device each call looks its plan up in
torch.backends.cuda.cufft_plan_cache (ts-ops-fft.c says what is modelled).

Not here: autograd through the transforms (a backward names the op: the
derivative for _fft_* is not implemented), complex32, hfft2/hfftn."""

import builtins as _builtins

import torch
from torch import _C, _unmodeled

# hfft2, hfftn, ihfft2, ihfftn...: named as not modeled, never a bare AttributeError
__getattr__ = _unmodeled.module_getattr(__name__)

_C2C, _R2C, _C2R = 0, 1, 2
_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _name(dt):
    return torch._shape._SCALAR_NAMES[dt._name]


def _norm(norm, forward):
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError('Invalid normalization mode: "%s"' % norm)


def _promote(x, require_complex=False):
    """promote_tensor_fft: integers to the default dtype, then float32 or
    float64 only, to complex when asked"""
    dt = x.dtype
    if dt.is_complex:
        return x
    if not dt.is_floating_point:
        dt = torch.get_default_dtype()
    if dt not in (torch.float32, torch.float64):
        if x.is_cuda and dt is torch.float16:
            raise torch._unmodeled.unsupported("torch.fft of float16 CUDA tensors (cuFFT's half transforms)",
                                               "float32 and float64 are")
        raise RuntimeError("Unsupported dtype %s" % _name(dt))
    if require_complex:
        dt = torch.complex64 if dt is torch.float32 else torch.complex128
    return x if dt is x.dtype else x.to(dt)


def _wrap(dim, ndim):
    """maybe_wrap_dim without wrapping scalars"""
    if ndim == 0:
        raise IndexError("Dimension specified as %d but tensor has no dimensions" % dim)
    if not -ndim <= dim < ndim:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                         % (-ndim, ndim - 1, dim))
    return dim % ndim


def _check_points(n):
    if n < 1:
        raise RuntimeError("Invalid number of data points (%d) specified" % n)


def _resize(x, dims, sizes):
    """resize_fft_input: trim with a view, zero-pad with a copy"""
    shape = list(x.shape)
    pad = False
    for d, n in zip(dims, sizes):
        if n == -1:
            continue
        if x.shape[d] > n:
            x = x.narrow(d, 0, n)
        elif x.shape[d] < n:
            pad = True
        shape[d] = n
    if not pad:
        return x
    out = torch.zeros(shape, dtype=x.dtype, device=x.device)
    region = out
    for d in range(x.dim()):
        region = region.narrow(d, 0, x.shape[d])
    region.copy_(x)
    return out


def _out(result, out):
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise torch._unmodeled.unsupported("torch.fft's out= of another shape (PyTorch resizes it)",
                                           "an out of the result's shape is")
    return out.copy_(result)


def _c2c(name, x, n, dim, norm, forward):
    if not x.dtype.is_complex:
        raise RuntimeError("%s expects a complex input tensor, but got %s" % (name, _name(x.dtype)))
    d = _wrap(dim, x.dim())
    size = x.shape[d] if n is None else n
    _check_points(size)
    if n is not None:
        x = _resize(x, (d,), (n,))
    return _C._fft(_C2C, x, (d,), _norm(norm, forward), forward, 0)


def _r2c(name, x, n, dim, norm, forward, onesided):
    if x.dtype.is_complex:
        raise RuntimeError("%s expects a real input tensor, but got %s" % (name, _name(x.dtype)))
    x = _promote(x)
    d = _wrap(dim, x.dim())
    size = x.shape[d] if n is None else n
    _check_points(size)
    if n is not None:
        x = _resize(x, (d,), (n,))
    r = _C._fft(_R2C, x, (d,), _norm(norm, forward), onesided, 0)
    # _fft_r2c has no inverse: the inverse of a real signal is the conjugate
    return r if forward else r.conj()


def _c2r(name, x, n, dim, norm, forward):
    x = _promote(x, require_complex=True)
    d = _wrap(dim, x.dim())
    size = 2 * (x.shape[d] - 1) if n is None else n
    _check_points(size)
    if n is not None:
        x = _resize(x, (d,), (n // 2 + 1,))
    if forward:
        # _fft_c2r has no forward transform: that of the conjugate
        x = x.conj()
    return _C._fft(_C2R, x, (d,), _norm(norm, forward), False, size)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    if input.dtype.is_complex:
        return _out(_c2c("fft", input, n, dim, norm, True), out)
    return _out(_r2c("fft", input, n, dim, norm, True, False), out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    if input.dtype.is_complex:
        return _out(_c2c("ifft", input, n, dim, norm, False), out)
    return _out(_r2c("ifft", input, n, dim, norm, False, False), out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _out(_r2c("rfft", input, n, dim, norm, True, True), out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _out(_c2r("irfft", input, n, dim, norm, False), out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _out(_c2r("hfft", input, n, dim, norm, True), out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _out(_r2c("ihfft", input, n, dim, norm, False, True), out)


def _shape_and_dims(x, s, dim):
    """canonicalize_fft_shape_and_dim_args"""
    ndim = x.dim()
    dims = None
    if dim is not None:
        dims = [_wrap(d, ndim) for d in ((dim,) if isinstance(dim, _builtins.int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = list(s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError("Got shape with %d values but input tensor only has %d dimensions."
                               % (len(s), ndim))
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    elif dims is None:
        dims, shape = list(range(ndim)), list(x.shape)
    else:
        shape = [x.shape[d] for d in dims]
    for n in shape:
        _check_points(n)
    return shape, dims


def _fftn(x, s, dim, norm, forward):
    shape, dims = _shape_and_dims(x, s, dim)
    x = _resize(_promote(x, require_complex=True), dims, shape)
    if not dims:
        return x.clone()
    return _C._fft(_C2C, x, tuple(dims), _norm(norm, forward), forward, 0)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    return _out(_fftn(input, s, dim, norm, True), out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    return _out(_fftn(input, s, dim, norm, False), out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    if input.dtype.is_complex:
        raise RuntimeError("rfftn expects a real-valued input tensor, but got %s" % _name(input.dtype))
    shape, dims = _shape_and_dims(input, s, dim)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(input), dims, shape)
    return _out(_C._fft(_R2C, x, tuple(dims), _norm(norm, True), True, 0), out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    shape, dims = _shape_and_dims(input, s, dim)
    if not dims:
        raise RuntimeError("irfftn must transform at least one axis")
    last = 2 * (input.shape[dims[-1]] - 1) if s is None or list(s)[-1] == -1 else shape[-1]
    _check_points(last)
    shape[-1] = last // 2 + 1
    x = _resize(_promote(input, require_complex=True), dims, shape)
    return _out(_C._fft(_C2R, x, tuple(dims), _norm(norm, False), False, last), out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return fftn(input, s, dim, norm, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ifftn(input, s, dim, norm, out=out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return rfftn(input, s, dim, norm, out=out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return irfftn(input, s, dim, norm, out=out)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """arange(n) with its upper half made negative, times 1 / (n d)"""
    result = torch.arange(n, dtype=dtype or torch.get_default_dtype(), device=device)
    result[(n + 1) // 2:] = torch.arange(-(n // 2), 0, dtype=result.dtype, device=device)
    return _out(result.mul_(1.0 / (n * d)).requires_grad_(requires_grad), out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    result = torch.arange(n // 2 + 1, dtype=dtype or torch.get_default_dtype(), device=device)
    return _out(result.mul_(1.0 / (n * d)).requires_grad_(requires_grad), out)


def _shift(input, dim, half):
    dims = list(range(input.dim())) if dim is None else ([dim] if isinstance(dim, _builtins.int) else list(dim))
    if not dims:
        return input.clone()
    return torch.roll(input, [half(input.shape[d]) for d in dims], dims)


def fftshift(input, dim=None):
    return _shift(input, dim, lambda n: n // 2)


def ifftshift(input, dim=None):
    return _shift(input, dim, lambda n: (n + 1) // 2)
