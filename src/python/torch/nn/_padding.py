"""Padding and resampling: F.pad, F.interpolate, F.pixel_shuffle and
pixel_unshuffle, and the padding, Upsample and PixelShuffle modules
(torch/nn/modules/padding.py, upsampling.py, pixelshuffle.py upstream).

Padding (constant, reflection, replication, circular) and nearest,
linear, bilinear and bicubic upsampling run as aten:: rows of the op
table (the REMAP family, ts-ops-pool.c), with PyTorch's nodes (circular
padding's is CopySlices, as PyTorch 1.13 copies into slices); 'area' is
adaptive average pooling, as in PyTorch; pixel (un)shuffle are REMAP ops
too (PixelShuffleBackward0, PixelUnshuffleBackward0).
"""

import math

import torch
from torch import _unmodeled
from .modules import Module

_C = torch._C

# TsRemapKernel (ts-cpu-pool.h)
_CONSTANT, _REFLECT, _REPLICATE, _CIRCULAR, _NEAREST, _LINEAR, _CUBIC, _PIXEL_SHUFFLE = 0, 1, 2, 3, 4, 5, 6, 7
_MODES = {"constant": _CONSTANT, "reflect": _REFLECT, "replicate": _REPLICATE, "circular": _CIRCULAR}


def _pairs(input, pad):
    """[(dim, left, right)] from the last dim backwards, as pad lists them."""
    k = len(pad) // 2
    return [(input.dim() - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(k)]


def _remap(mode, input, pairs, value=0.0):
    pairs = sorted(pairs)
    shape = list(input.shape)
    for d, l, r in pairs:
        shape[d] += l + r
    k = input.dim() - pairs[0][0]
    pads = [0] * k
    for d, l, r in pairs:
        pads[d - (input.dim() - k)] = l
    return _C._remap(mode, input, tuple(pads), (0.0,) * k, tuple(shape), float(value))


def _constant_pad(input, pad, value):
    pairs = _pairs(input, pad)
    for d, l, r in pairs:
        n = input.shape[d]
        if l < 0:
            if -l > n:
                raise RuntimeError("start ({}) + length ({}) exceeds dimension size ({}).".format(-l, n + l, n))
            n += l
        if r < 0 and n + r < 0:
            raise RuntimeError("start (0) + length ({}) exceeds dimension size ({}).".format(n + r, n))
    if not pairs:
        return input.clone()
    if len(pairs) > 4:
        # the op pads up to 4 trailing dims at once: the outer ones first,
        # over the trailing 4 collapsed into one
        lead = input.dim() - 4
        flat = input.reshape(tuple(input.shape[:lead]) + (-1,))
        outer = _remap(_CONSTANT, flat, pairs[4:], value)
        return _remap(_CONSTANT, outer.reshape(tuple(outer.shape[:lead]) + tuple(input.shape[lead:])),
                      pairs[:4], value)
    return _remap(_CONSTANT, input, pairs, value)


def _check_reflect(input, pad):
    k = len(pad) // 2
    dims = _pairs(input, pad)
    for i, (d, l, r) in enumerate(dims):
        n = input.shape[d]
        if l >= n or r >= n:
            tail = list(input.shape) if i == 0 else input.dim()
            raise RuntimeError("Argument #{}: Padding size should be less than the corresponding input dimension, "
                               "but got: padding ({}, {}) at dimension {} of input {}"
                               .format(4 + 2 * i, l, r, d, tail))
    return k


def _circular_pad(input, pad):
    for d, l, r in _pairs(input, pad):
        if l > input.shape[d] or r > input.shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if l < 0 or r < 0:
            raise _unmodeled.unsupported("F.pad(..., mode='circular') with negative padding")
    return _remap(_CIRCULAR, input, _pairs(input, pad))


def pad(input, pad, mode="constant", value=None):
    if mode not in _MODES:
        raise NotImplementedError("Unrecognised padding mode {}".format(mode))
    pad = tuple(pad)
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > input.dim() * 2:
        raise RuntimeError("Padding length too large")
    if mode == "constant":
        return _constant_pad(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError("Padding mode \"{}\" doesn't take in value argument".format(mode))
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
    if mode == "circular":
        return _circular_pad(input, pad)
    if mode == "reflect":
        _check_reflect(input, pad)
    return _remap(_MODES[mode], input, _pairs(input, pad))


# -- Interpolation -----------------------------------------------------------

def _output_size(input, size, scale_factor, recompute_scale_factor):
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    "dimensions of {} and output size of {}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    "format and output size in (o1, o2, ...,oK) format.".format(list(input.shape[2:]), size))
            return list(size), None
        return [size] * dim, None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
                "dimensions of {} and scale_factor of shape {}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                "format and scale_factor in (s1, s2, ...,sK) format.".format(list(input.shape[2:]), scale_factor))
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dim
    out = [int(math.floor(input.shape[i + 2] * scales[i])) for i in range(dim)]
    return out, (None if recompute_scale_factor else scales)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if antialias:
        raise _unmodeled.unsupported("F.interpolate(..., antialias=True)")
    if mode == "area" and size is None:
        recompute_scale_factor = True
    out_size, scales = _output_size(input, size, scale_factor, recompute_scale_factor)
    if mode == "area" and input.dim() in (3, 4):
        from ._pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
        return (adaptive_avg_pool1d if input.dim() == 3 else adaptive_avg_pool2d)(input, out_size)
    if mode == "nearest" and input.dim() in (3, 4):
        shape = tuple(input.shape[:2]) + tuple(out_size)
        inv = tuple(float(1.0 / s) if s is not None and s > 0 else 0.0 for s in (scales or [None] * len(out_size)))
        return _C._remap(_NEAREST, input, (0,) * len(out_size), inv, shape, 0.0)
    if (mode, input.dim()) in (("linear", 3), ("bilinear", 4), ("bicubic", 4)):
        shape = tuple(input.shape[:2]) + tuple(out_size)
        inv = tuple(float(1.0 / s) if s is not None and s > 0 else 0.0 for s in (scales or [None] * len(out_size)))
        return _C._remap(_CUBIC if mode == "bicubic" else _LINEAR, input, (0,) * len(out_size), inv, shape, 0.0,
                         bool(align_corners))
    if mode in ("linear", "bilinear", "trilinear", "bicubic") and input.dim() != {"linear": 3, "bilinear": 4,
                                                                                   "trilinear": 5}.get(mode, 4):
        raise NotImplementedError("Got {}D input, but {} mode needs {}D input".format(
            input.dim(), mode, {"linear": 3, "bilinear": 4, "trilinear": 5}.get(mode, 4)))
    raise _unmodeled.unsupported("F.interpolate(..., mode='{}') on {}-D input".format(mode, input.dim()))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def _check_pixel(name, input, factor, what):
    if input.dim() < 3:
        raise RuntimeError("{} expects input to have at least 3 dimensions, but got input with {} dimension(s)"
                           .format(name, input.dim()))
    if factor <= 0:
        raise RuntimeError("{} expects a positive {}, but got {}".format(name, what, factor))


def pixel_shuffle(input, upscale_factor):
    r = upscale_factor
    _check_pixel("pixel_shuffle", input, r, "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r) != 0:
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           "of upscale_factor, but input.size(-3)={} is not divisible by {}".format(c, r * r))
    shape = tuple(lead) + (c // (r * r), h * r, w * r)
    return _C._remap(_PIXEL_SHUFFLE, input, (r,), (0.0,), shape, 0.0)


def pixel_unshuffle(input, downscale_factor):
    s = downscale_factor
    _check_pixel("pixel_unshuffle", input, s, "downscale_factor")
    *lead, c, h, w = input.shape
    for what, n, d in (("height", h, -2), ("width", w, -1)):
        if n % s != 0:
            raise RuntimeError("pixel_unshuffle expects {} to be divisible by downscale_factor, but input.size({})={} "
                               "is not divisible by {}".format(what, d, n, s))
    shape = tuple(lead) + (c * s * s, h // s, w // s)
    return _C._remap(_PIXEL_SHUFFLE, input, (-s,), (0.0,), shape, 0.0)


# -- Modules -----------------------------------------------------------------

def _ntuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._n)
        if value is not None:
            self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return pad(input, self.padding, "constant", self.value)
        return pad(input, self.padding, self._mode)

    def extra_repr(self):
        if self._mode == "constant":
            return "padding={}, value={}".format(self.padding, self.value)
        return "{}".format(self.padding)


class ConstantPad1d(_PadNd):
    _n = 1


class ConstantPad2d(_PadNd):
    _n = 2


class ConstantPad3d(_PadNd):
    _n = 3


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return "{}".format(self.padding)


class ReflectionPad1d(_PadNd):
    _mode = "reflect"


class ReflectionPad2d(_PadNd):
    _n = 2
    _mode = "reflect"


class ReflectionPad3d(_PadNd):
    _n = 3
    _mode = "reflect"


class ReplicationPad1d(_PadNd):
    _mode = "replicate"


class ReplicationPad2d(_PadNd):
    _n = 2
    _mode = "replicate"


class ReplicationPad3d(_PadNd):
    _n = 3
    _mode = "replicate"


class Upsample(Module):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        info += ", mode=" + self.mode
        return info


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


def _deprecated_upsample(name, mode, align_corners):
    def f(input, size=None, scale_factor=None):
        import warnings
        warnings.warn("nn.functional.{} is deprecated. Use nn.functional.interpolate instead.".format(name),
                      stacklevel=2)
        return interpolate(input, size, scale_factor, mode=mode, align_corners=align_corners)
    f.__name__ = name
    return f


upsample_nearest = _deprecated_upsample("upsample_nearest", "nearest", None)
upsample_bilinear = _deprecated_upsample("upsample_bilinear", "bilinear", True)


class PixelShuffle(Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return "upscale_factor={}".format(self.upscale_factor)


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return "downscale_factor={}".format(self.downscale_factor)
