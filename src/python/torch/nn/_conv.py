# Convolutions: F.conv1d/2d/3d, F.conv_transpose1d/2d/3d, F.unfold/F.fold
# and their modules, as PyTorch 1.13's torch/nn/functional.py and
# torch/nn/modules/conv.py and fold.py have them.
#
# Every convolution is one aten::convolution (torch._C._convolution: the
# table's CONVOLUTION op, ts-ops-conv.c), which checks the shapes with
# ATen's messages and records ConvolutionBackward0. unfold and fold are
# convolutions with a one-hot weight (each output takes one input element
# times 1, the other products are exact zeros), so their values are
# PyTorch's, and their gradients come through ConvolutionBackward0;
# inputs holding inf or nan would spread nan through the zero products.

import math
import warnings

import torch
from torch import _unmodeled
from torch.nn import init
from torch.nn.modules import Module, _optional_parameters
from torch.nn.parameter import Parameter


def _ntuple(n, x):
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,) * n


def _int_list(n, x):
    return list(x) if isinstance(x, (list, tuple)) else [x] * n


def _same_padding(weight, n, stride, dilation):
    """_convolution_mode's 'same': the padding of each spatial dim, and the
    dims whose total padding d * (k - 1) is odd. PyTorch pads those with
    one more zero on the right (F.pad first); here they take the larger
    padding on both sides and lose the output's first position, the same
    windows summed the same way."""
    if any(s != 1 for s in _int_list(n, stride)):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = _int_list(n, dilation)
    if len(dilation) == 1:
        dilation = dilation * n
    padding, crop = [], []
    for i, (d, k) in enumerate(zip(dilation, weight.shape[2:])):
        total = d * (k - 1)
        padding.append(total - total // 2)
        if total % 2:
            crop.append(i)
    if crop and not _warned_same[0]:
        # TORCH_WARN_ONCE, at the caller of F.conv*d
        _warned_same[0] = True
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                      "copy of the input be created (Triggered internally at  "
                      "./aten/src/ATen/native/Convolution.cpp:895.)", UserWarning, stacklevel=4)
    return padding, crop


_warned_same = [False]


def _conv(n, input, weight, bias, stride, padding, dilation, groups, transposed=False, output_padding=0):
    name = ("conv_transpose%dd" if transposed else "conv%dd") % n
    if not isinstance(input, torch.Tensor):
        raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s" % (name, type(input).__name__))
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError("Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s"
                           % (n + 1, n + 2, name, list(input.shape)))
    crop = []
    if isinstance(padding, str):
        if transposed:
            raise TypeError("%s(): argument 'padding' must be tuple of ints, not str" % name)
        if padding == "valid":
            padding = 0
        elif padding == "same":
            padding, crop = _same_padding(weight, n, stride, dilation)
        else:
            raise RuntimeError("Invalid padding string: '%s'" % padding)
    if not input.dtype.is_floating_point:
        raise _unmodeled.unsupported("F.%s of %s tensors" % (name, str(input.dtype)))
    unbatched = input.dim() == n + 1
    if unbatched:
        input = input.unsqueeze(0)
    out = torch._C._convolution(input, weight, bias, _int_list(n, stride), _int_list(n, padding),
                                _int_list(n, dilation), transposed, _int_list(n, output_padding), groups)
    for i in crop:
        out = out.narrow(2 + i, 1, out.shape[2 + i] - 1)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv(1, input, weight, bias, stride, padding, dilation, groups, True, output_padding)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv(2, input, weight, bias, stride, padding, dilation, groups, True, output_padding)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv(3, input, weight, bias, stride, padding, dilation, groups, True, output_padding)


# -- unfold / fold ----------------------------------------------------------

def _one_hot_kernel(kernel_size, like):
    """(K, 1, kh, kw): kernel position k picks its own element."""
    k = kernel_size[0] * kernel_size[1]
    positions = torch.arange(k)
    one_hot = (positions.reshape(k, 1) == positions).to(dtype=like.dtype, device=like.device)
    return one_hot.reshape(k, 1, kernel_size[0], kernel_size[1])


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    if input.dim() not in (3, 4):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           "dimensions for input, but got: %s" % list(input.shape))
    kernel_size, dilation, padding, stride = (_ntuple(2, a) for a in (kernel_size, dilation, padding, stride))
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    n, c, h, w = x.shape
    cols = conv2d(x.reshape(n * c, 1, h, w), _one_hot_kernel(kernel_size, x), None, stride, padding, dilation)
    k = kernel_size[0] * kernel_size[1]
    out = cols.reshape(n, c * k, cols.shape[2] * cols.shape[3])
    return out if batched else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    if input.dim() not in (2, 3):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
                           "dimensions for input, but got: %s" % list(input.shape))
    output_size, kernel_size, dilation, padding, stride = (
        _ntuple(2, a) for a in (output_size, kernel_size, dilation, padding, stride))
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    k = kernel_size[0] * kernel_size[1]
    if x.shape[1] % k != 0:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           "but got input.size(1)=%d and kernel_size=(%d, %d)."
                           % (x.shape[1], kernel_size[0], kernel_size[1]))
    blocks = [(output_size[d] + 2 * padding[d] - dilation[d] * (kernel_size[d] - 1) - 1) // stride[d] + 1
              for d in range(2)]
    if blocks[0] * blocks[1] != x.shape[2]:
        raise RuntimeError("Given output_size=(%d, %d), kernel_size=(%d, %d), dilation=(%d, %d), padding=(%d, %d), "
                           "stride=(%d, %d), expected size of input's dimension 2 to match the calculated number "
                           "of sliding blocks %d * %d = %d, but got input.size(2)=%d."
                           % (output_size + kernel_size + dilation + padding + stride
                              + (blocks[0], blocks[1], blocks[0] * blocks[1], x.shape[2])))
    n, c = x.shape[0], x.shape[1] // k
    cols = x.reshape(n * c, k, blocks[0], blocks[1])
    extra = [output_size[d] - ((blocks[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1)
             for d in range(2)]
    out = conv_transpose2d(cols, _one_hot_kernel(kernel_size, x), None, stride, padding, extra, 1, dilation)
    out = out.reshape(n, c, output_size[0], output_size[1])
    return out if batched else out.squeeze(0)


class Unfold(Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "kernel_size={}, dilation={}, padding={}, stride={}".format(
            self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(Module):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "output_size={}, kernel_size={}, dilation={}, padding={}, stride={}".format(
            self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


# -- modules (torch/nn/modules/conv.py) ----------------------------------------

class _ConvNd(Module):
    _n = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError("Invalid padding string {!r}, should be one of {}".format(
                    padding, "{'same', 'valid'}"))
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of {}, but got padding_mode='{}'".format(
                "{'zeros', 'reflect', 'replicate', 'circular'}", padding_mode))
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total_padding = d * (k - 1)
                    left_pad = total_padding // 2
                    self._reversed_padding_repeated_twice[2 * i] = left_pad
                    self._reversed_padding_repeated_twice[2 * i + 1] = total_padding - left_pad
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(self.padding) for _ in range(2)]
        if transposed:
            shape = (in_channels, out_channels // groups) + tuple(kernel_size)
        else:
            shape = (out_channels, in_channels // groups) + tuple(kernel_size)
        self.weight = Parameter(torch.empty(shape, device=device, dtype=dtype))
        _optional_parameters(self, bias, out_channels, device, dtype, ("bias",))
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{}, {}, kernel_size={}, stride={}".format(self.in_channels, self.out_channels, self.kernel_size,
                                                       self.stride)
        if isinstance(self.padding, str) or self.padding != (0,) * len(self.padding):
            s += ", padding={}".format(self.padding)
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={}".format(self.dilation)
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={}".format(self.output_padding)
        if self.groups != 1:
            s += ", groups={}".format(self.groups)
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={}".format(self.padding_mode)
        return s

    def _conv_forward(self, input, weight, bias):
        functional = _FUNCTIONAL[self._n]
        if self.padding_mode != "zeros":
            pad = getattr(torch.nn.functional, "pad", None)
            if pad is None:
                raise _unmodeled.unsupported("%s(padding_mode='%s')" % (type(self).__name__, self.padding_mode),
                                             "F.pad is not modeled yet")
            return functional(pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                              weight, bias, self.stride, 0, self.dilation, self.groups)
        return functional(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


def _conv_module(n):
    class ConvNd(_ConvNd):
        _n = n

        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                     bias=True, padding_mode="zeros", device=None, dtype=None):
            super().__init__(in_channels, out_channels, _ntuple(n, kernel_size), _ntuple(n, stride),
                             padding if isinstance(padding, str) else _ntuple(n, padding), _ntuple(n, dilation),
                             False, _ntuple(n, 0), groups, bias, padding_mode, device, dtype)

    ConvNd.__name__ = ConvNd.__qualname__ = "Conv%dd" % n
    return ConvNd


class _ConvTransposeNd(_ConvNd):
    def __init__(self, n, in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias,
                 dilation, padding_mode, device, dtype):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for {}'.format(type(self).__name__))
        super().__init__(in_channels, out_channels, _ntuple(n, kernel_size), _ntuple(n, stride), _ntuple(n, padding),
                         _ntuple(n, dilation), True, _ntuple(n, output_padding), groups, bias, padding_mode, device,
                         dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return list(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError("ConvTranspose{}D: for {}D input, output_size must have {} or {} elements (got {})"
                             .format(num_spatial_dims, input.dim(), num_spatial_dims,
                                     num_non_spatial_dims + num_spatial_dims, len(output_size)))
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = ((input.size(d + num_non_spatial_dims) - 1) * stride[d] - 2 * padding[d] +
                        (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            min_sizes.append(dim_size)
            max_sizes.append(min_sizes[d] + stride[d] - 1)
        for i in range(len(output_size)):
            if output_size[i] < min_sizes[i] or output_size[i] > max_sizes[i]:
                raise ValueError(("requested an output size of {}, but valid sizes range "
                                  "from {} to {} (for an input of {})").format(
                                      output_size, min_sizes, max_sizes, torch.Size(input.size()[2:])))
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def forward(self, input, output_size=None):
        n = self._n
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, n,
                                              self.dilation)
        return _FUNCTIONAL_T[n](input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                self.groups, self.dilation)


def _conv_transpose_module(n):
    class ConvTransposeNd(_ConvTransposeNd):
        _n = n

        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                     bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
            super().__init__(n, in_channels, out_channels, kernel_size, stride, padding, output_padding, groups,
                             bias, dilation, padding_mode, device, dtype)

    ConvTransposeNd.__name__ = ConvTransposeNd.__qualname__ = "ConvTranspose%dd" % n
    return ConvTransposeNd


_FUNCTIONAL = {1: conv1d, 2: conv2d, 3: conv3d}
_FUNCTIONAL_T = {1: conv_transpose1d, 2: conv_transpose2d, 3: conv_transpose3d}

Conv1d = _conv_module(1)
Conv2d = _conv_module(2)
Conv3d = _conv_module(3)
ConvTranspose1d = _conv_transpose_module(1)
ConvTranspose2d = _conv_transpose_module(2)
ConvTranspose3d = _conv_transpose_module(3)
for _cls in (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d):
    _cls.__module__ = "torch.nn.modules.conv"
