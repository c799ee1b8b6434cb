"""The torch.* forms of pooling, normalization, padding and activations
(torch.max_pool2d, torch.batch_norm, ...), with ATen's argument orders,
over the F.* implementations."""

import torch
from . import _activation_more as _act
from . import _normalization as _norm
from . import _padding as _pad
from . import _pooling as _pool


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, True)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return _pool.avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode, count_include_pad)


def adaptive_max_pool1d(input, output_size):
    return _pool.adaptive_max_pool1d(input, output_size, True)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    return _norm.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    out, stats = torch._C._native_batch_norm(input, weight, bias, running_mean, running_var, bool(training),
                                             float(momentum), float(eps))
    if not training:
        # PyTorch's eval form saves nothing: empty statistics
        empty = torch.empty(0, dtype=input.dtype, device=input.device)
        return out, empty, empty.clone()
    return out, stats[0], stats[1]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return _norm.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled=True):
    return _norm.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def constant_pad_nd(input, pad, value=0):
    return _pad.pad(input, pad, "constant", value)


def _dropout_form(feature, alpha, inplace):
    # torch.dropout (input, p, train): ATen's positional form, no range check
    def f(input, p, train):
        from .functional import _dropout_impl
        return _dropout_impl(input, p, train, inplace, feature, alpha)
    return f


for _name, _feature, _alpha in (("dropout", False, False), ("feature_dropout", True, False),
                                ("alpha_dropout", False, True), ("feature_alpha_dropout", True, True)):
    for _suffix, _inplace in (("", False), ("_", True)):
        _f = _dropout_form(_feature, _alpha, _inplace)
        _f.__name__ = _name + _suffix
        setattr(torch, _f.__name__, _f)
del _feature, _alpha, _suffix, _inplace

for _f in (max_pool1d, max_pool2d, max_pool1d_with_indices, avg_pool1d, adaptive_max_pool1d, batch_norm,
           native_batch_norm, group_norm, instance_norm, constant_pad_nd):
    setattr(torch, _f.__name__, _f)
for _name, _f in (("adaptive_avg_pool1d", _pool.adaptive_avg_pool1d), ("pixel_shuffle", _pad.pixel_shuffle),
                  ("pixel_unshuffle", _pad.pixel_unshuffle), ("selu", _act.selu), ("celu", _act.celu),
                  ("prelu", _act.prelu)):
    setattr(torch, _name, _f)
del _f, _name
