"""Pooling: F.max_pool1d/2d, avg_pool1d/2d, adaptive_{avg,max}_pool1d/2d
and their modules (torch/nn/modules/pooling.py upstream).

The 2-d ops run as aten:: rows of the op table (ts-ops-pool.c); the 1-d
forms are PyTorch 1.13's: the 2-d op over a unit height between an
unsqueeze and a squeeze (SqueezeBackward1 on top). This file checks the
arguments with PyTorch's messages and computes the output sizes.
"""

import torch
from torch import _unmodeled
from .modules import Module

_C = torch._C

# TsPoolKernel (ts-cpu-pool.h)
_MAX, _AVG, _ADAPTIVE_AVG, _ADAPTIVE_MAX = 0, 1, 2, 3


def _pair(v, name="kernel_size"):
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    if len(v) == 1:
        return (v[0], v[0])
    if len(v) != 2:
        raise RuntimeError("max_pool2d: {} must either be a single int, or a tuple of two ints".format(name))
    return v


def _single(v):
    return (v,) if isinstance(v, int) else tuple(v)


def _out_size(size, k, pad, stride, dilation, ceil_mode):
    # PyTorch's pooling_output_shape
    num = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _window(input, kernel_size, stride, padding, dilation, ceil_mode):
    """(k, s, p, d, (oh, ow)) with PyTorch's checks (pool2d_shape_check)."""
    k = _pair(kernel_size)
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _pair(stride, "stride")
    p = _pair(padding, "padding")
    d = _pair(dilation, "dilation")
    if s[0] == 0 or s[1] == 0:
        raise RuntimeError("stride should not be zero")
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got kH: {} kW: {}".format(*k))
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError("dilation should be greater than zero, but got dilationH: {} dilationW: {}".format(*d))
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise RuntimeError("pad should be at most half of kernel size, but got pad={} and kernel_size={}"
                           .format(p[0] if p[0] > k[0] // 2 else p[1], k[0] if p[0] > k[0] // 2 else k[1]))
    if input.dim() not in (3, 4) or input.numel() == 0 and input.dim() == 3:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    H, W = input.shape[-2], input.shape[-1]
    oh = _out_size(H, k[0], p[0], s[0], d[0], ceil_mode)
    ow = _out_size(W, k[1], p[1], s[1], d[1], ceil_mode)
    if oh < 1 or ow < 1:
        C = input.shape[-3]
        raise RuntimeError("Given input size: ({}x{}x{}). Calculated output size: ({}x{}x{}). "
                           "Output size is too small".format(C, H, W, C, oh, ow))
    return k, s, p, d, (oh, ow)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    k, s, p, d, (oh, ow) = _window(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _C._pool2d(_MAX, input, k + s + p + d, True, 0, oh, ow)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _check_1d(name, input):
    if input.dim() not in (2, 3):
        raise RuntimeError("{}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
                           "but got:{}".format(name, list(input.shape)))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    _check_1d("max_pool1d", input)
    stride = _single(kernel_size) if stride is None or stride == () or stride == [] else _single(stride)
    out, indices = max_pool2d_with_indices(input.unsqueeze(-2), (1,) + _single(kernel_size), (1,) + stride,
                                           (0,) + _single(padding), (1,) + _single(dilation), ceil_mode)
    out = out.squeeze(-2)
    return (out, indices.squeeze(-2)) if return_indices else out


max_pool1d_with_indices = max_pool1d


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input.dim() < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-{0}, {1}], but got -3)"
                         .format(max(input.dim(), 1), max(input.dim(), 1) - 1))
    k, s, p, d, (oh, ow) = _window(input, kernel_size, stride, padding, 1, ceil_mode)
    out, _ = _C._pool2d(_AVG, input, k + s + p + d, bool(count_include_pad), divisor_override or 0, oh, ow)
    return out


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    _check_1d("avg_pool1d", input)
    stride = _single(kernel_size) if stride is None or stride == () or stride == [] else _single(stride)
    return avg_pool2d(input.unsqueeze(-2), (1,) + _single(kernel_size), (1,) + stride, (0,) + _single(padding),
                      ceil_mode, count_include_pad).squeeze(-2)


def _adaptive_size(name, input, output_size):
    if input.dim() not in (3, 4):
        raise RuntimeError("{}(): Expected 3D or 4D tensor, but got {}".format(name, list(input.shape)))
    size = _pair(output_size, "output_size") if output_size is not None else (None, None)
    return tuple(input.shape[-2 + i] if v is None else v for i, v in enumerate(size))


def adaptive_avg_pool2d(input, output_size):
    oh, ow = _adaptive_size("adaptive_avg_pool2d", input, output_size)
    if (oh, ow) == (1, 1):
        # PyTorch 1.13 takes a mean for a 1x1 output (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    out, _ = _C._pool2d(_ADAPTIVE_AVG, input, (0,) * 8, True, 0, oh, ow)
    return out


def adaptive_max_pool2d(input, output_size, return_indices=False):
    oh, ow = _adaptive_size("adaptive_max_pool2d", input, output_size)
    out, indices = _C._pool2d(_ADAPTIVE_MAX, input, (0,) * 8, True, 0, oh, ow)
    return (out, indices) if return_indices else out


adaptive_max_pool2d_with_indices = adaptive_max_pool2d


def _adaptive_1d(name, input, output_size):
    if input.dim() not in (2, 3):
        raise RuntimeError("{}(): Expected 2D or 3D tensor, but got {}".format(name, list(input.shape)))
    size = _single(output_size)
    if len(size) != 1:
        raise RuntimeError("{}: output_size must be 1".format(name))
    return (1, size[0] if size[0] is not None else input.shape[-1])


def adaptive_avg_pool1d(input, output_size):
    size = _adaptive_1d("adaptive_avg_pool1d", input, output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), size).squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    size = _adaptive_1d("adaptive_max_pool1d", input, output_size)
    out, indices = adaptive_max_pool2d(input.unsqueeze(-2), size, True)
    out = out.squeeze(-2)
    return (out, indices.squeeze(-2)) if return_indices else out


# -- 3-d pooling ----------------------------------------------------------------
#
# A 3-d window is a box, and its max, its sum and its element count are
# separable: the 2-d op over (H, W) of every depth slice, then the 2-d op
# over (D, 1) of the results (a (D, H'*W') plane per channel). The values
# of max pooling and its indices (the first maximum in (d, h, w) order) are
# PyTorch's exactly; averages divide twice where PyTorch divides once, so
# their last bit may differ. PyTorch runs one max_pool3d/avg_pool3d
# kernel; here they are two 2-d pooling launches.

def _triple(v, name):
    if isinstance(v, int):
        return (v, v, v)
    v = tuple(v)
    if len(v) == 1:
        return v * 3
    if len(v) != 3:
        raise RuntimeError("{}: {} must either be a single int, or a tuple of three ints".format(
            "max_pool3d" if name != "avg" else "avg_pool3d", name))
    return v


def _as_5d(name, input):
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    return input if input.dim() == 5 else input.unsqueeze(0)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    x = _as_5d("max_pool3d", input)
    k = _triple(kernel_size, "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _triple(stride, "stride")
    p, d = _triple(padding, "padding"), _triple(dilation, "dilation")
    n, c, depth, h, w = x.shape
    plane, hw_index = max_pool2d(x.reshape(n, c * depth, h, w), k[1:], s[1:], p[1:], d[1:], ceil_mode, True)
    h2, w2 = plane.shape[-2:]
    plane = plane.reshape(n, c, depth, h2 * w2)
    out, pick = max_pool2d(plane, (k[0], 1), (s[0], 1), (p[0], 0), (d[0], 1), ceil_mode, True)
    d_index = pick // (h2 * w2)
    indices = d_index * (h * w) + hw_index.reshape(n, c, depth, h2 * w2).gather(2, d_index)
    shape = (n, c, out.shape[2], h2, w2)
    out, indices = out.reshape(shape), indices.reshape(shape)
    if input.dim() == 4:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return (out, indices) if return_indices else out


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    x = _as_5d("avg_pool3d", input)
    k = _triple(kernel_size, "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _triple(stride, "stride")
    p = _triple(padding, "padding")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    n, c, depth, h, w = x.shape
    # with an override: the sums (divisor 1), then one division
    div = 1 if divisor_override is not None else None
    plane = avg_pool2d(x.reshape(n, c * depth, h, w), k[1:], s[1:], p[1:], ceil_mode, count_include_pad, div)
    h2, w2 = plane.shape[-2:]
    out = avg_pool2d(plane.reshape(n, c, depth, h2 * w2), (k[0], 1), (s[0], 1), (p[0], 0), ceil_mode,
                     count_include_pad, div)
    out = out.reshape(n, c, out.shape[2], h2, w2)
    if divisor_override is not None:
        out = out / divisor_override
    return out.squeeze(0) if input.dim() == 4 else out


def _adaptive_3d(name, input, output_size):
    if input.dim() not in (4, 5):
        raise RuntimeError("{}(): Expected 4D or 5D tensor, but got {}".format(name, list(input.shape)))
    size = _triple(output_size, "output_size") if output_size is not None else (None,) * 3
    return tuple(o if o is not None else input.shape[-3 + i] for i, o in enumerate(size))


def adaptive_avg_pool3d(input, output_size):
    size = _adaptive_3d("adaptive_avg_pool3d", input, output_size)
    x = input if input.dim() == 5 else input.unsqueeze(0)
    n, c, depth, h, w = x.shape
    plane = adaptive_avg_pool2d(x.reshape(n, c * depth, h, w), size[1:]).reshape(n, c, depth, -1)
    out = adaptive_avg_pool2d(plane, (size[0], plane.shape[-1])).reshape(n, c, *size)
    return out.squeeze(0) if input.dim() == 4 else out


def adaptive_max_pool3d(input, output_size, return_indices=False):
    size = _adaptive_3d("adaptive_max_pool3d", input, output_size)
    x = input if input.dim() == 5 else input.unsqueeze(0)
    n, c, depth, h, w = x.shape
    plane, hw_index = adaptive_max_pool2d(x.reshape(n, c * depth, h, w), size[1:], True)
    plane = plane.reshape(n, c, depth, -1)
    out, pick = adaptive_max_pool2d(plane, (size[0], plane.shape[-1]), True)
    cols = plane.shape[-1]
    d_index = pick // cols
    indices = d_index * (h * w) + hw_index.reshape(n, c, depth, cols).gather(2, d_index)
    out, indices = out.reshape(n, c, *size), indices.reshape(n, c, *size)
    if input.dim() == 4:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return (out, indices) if return_indices else out


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """PyTorch's composition: the p-th root of the window's sum of x^p (the
    average times the window's size), sign kept through relu(abs)."""
    kh, kw = _pair(kernel_size)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (torch.sign(out) * torch.relu(torch.abs(out))).mul(kh * kw).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (torch.sign(out) * torch.relu(torch.abs(out))).mul(kernel_size).pow(1.0 / norm_type)
fractional_max_pool2d = _unmodeled.stub("torch.nn.functional.fractional_max_pool2d")
def _unpool_size(input, kernel_size, stride, padding, output_size, n):
    default = [(input.size(input.dim() - n + d) - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    given = output_size
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError("output_size should be a sequence containing {} or {} elements, but it has a length of "
                         "'{}'".format(n, n + 2, len(output_size)))
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError('invalid output_size "{}" (dim {} must be between {} and {})'.format(
                given, d, low, high))
    return list(output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool2d's inverse: zeros, with each input value at its index in
    its channel's output plane (a scatter)."""
    k = _pair(kernel_size)
    st = _pair(stride, "stride") if stride is not None else k
    p = _pair(padding, "padding")
    oh, ow = _unpool_size(input, k, st, p, output_size, 2)
    x = input if input.dim() == 4 else input.unsqueeze(0)
    idx = indices if indices.dim() == 4 else indices.unsqueeze(0)
    n, c = x.shape[:2]
    out = x.new_zeros(n, c, oh * ow).scatter(2, idx.reshape(n, c, -1), x.reshape(n, c, -1))
    out = out.reshape(n, c, oh, ow)
    return out if input.dim() == 4 else out.squeeze(0)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    k, st, p = _single(kernel_size), _single(stride if stride is not None else kernel_size), _single(padding)
    size = _unpool_size(input, k, st, p, output_size, 1)
    out = max_unpool2d(input.unsqueeze(-2), indices.unsqueeze(-2), (1, k[0]), (1, st[0]), (0, p[0]), (1, size[0]))
    return out.squeeze(-2)


# -- Modules -----------------------------------------------------------------

class _MaxPoolNd(Module):
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._function(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                    ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return "kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, " \
               "ceil_mode={ceil_mode}".format(**self.__dict__)


class MaxPool1d(_MaxPoolNd):
    _function = staticmethod(max_pool1d)


class MaxPool2d(_MaxPoolNd):
    _function = staticmethod(max_pool2d)


class MaxPool3d(_MaxPoolNd):
    _function = staticmethod(max_pool3d)


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class AvgPool3d(AvgPool2d):
    def forward(self, input):
        return avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)


class _AdaptivePoolNd(Module):
    _function = None

    def __init__(self, output_size, return_indices=None):
        super().__init__()
        self.output_size = output_size
        if return_indices is not None:
            self.return_indices = return_indices

    def forward(self, input):
        if hasattr(self, "return_indices"):
            return type(self)._function(input, self.output_size, self.return_indices)
        return type(self)._function(input, self.output_size)

    def extra_repr(self):
        return "output_size={}".format(self.output_size)


class _AdaptiveAvgPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size):
        super().__init__(output_size)


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size, return_indices)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _function = staticmethod(adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    _function = staticmethod(adaptive_avg_pool2d)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _function = staticmethod(adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _function = staticmethod(adaptive_max_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _function = staticmethod(adaptive_avg_pool3d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _function = staticmethod(adaptive_max_pool3d)


class MaxUnpool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride if stride is not None else kernel_size)
        self.padding = _pair(padding)

    def forward(self, input, indices, output_size=None):
        return max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class MaxUnpool1d(MaxUnpool2d):
    def __init__(self, kernel_size, stride=None, padding=0):
        Module.__init__(self)
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)

    def forward(self, input, indices, output_size=None):
        return max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class LPPool2d(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
            **self.__dict__)


class LPPool1d(LPPool2d):
    def forward(self, input):
        return lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)
