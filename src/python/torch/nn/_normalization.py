"""Normalization: F.batch_norm, instance_norm, group_norm, rms_norm and
BatchNorm1d/2d/3d, InstanceNorm1d/2d, GroupNorm, RMSNorm
(torch/nn/modules/batchnorm.py, instancenorm.py, normalization.py
upstream).

batch_norm runs aten::native_batch_norm (ts-ops-pool.c: the statistics,
the running-stat update with the unbiased variance, the transform, and
NativeBatchNormBackward0), group_norm aten::native_group_norm
(NativeGroupNormBackward0). instance_norm is PyTorch 1.13's: batch norm
over (1, N*C, ...). rms_norm is PyTorch 2's composite (not in 1.13).
"""

import torch
from torch.amp.autocast_mode import autocast_policy
from .modules import Module, _LastDimsNorm, _optional_parameters, _reset_affine

_C = torch._C


def _verify_batch_size(size):
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size {}".format(size))


def _check_per_channel(name, t, c):
    if t is not None and t.numel() != c:
        raise RuntimeError("{} should contain {} elements not {}".format(name, c, t.numel()))


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    if training:
        _verify_batch_size(input.size())
    if input.dim() < 2:
        n = max(input.dim(), 1)
        raise IndexError("Dimension out of range (expected to be in range of [-{}, {}], but got 1)".format(n, n - 1))
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        _check_per_channel(name, t, c)
    if not training:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError("{} must be defined in evaluation mode".format(name))
    out, _ = _C._native_batch_norm(input, weight, bias, running_mean, running_var, bool(training),
                                   float(momentum if momentum is not None else 0.0), float(eps))
    return out


def _verify_spatial_size(size):
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size {}".format(size))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if use_input_stats:
        _verify_spatial_size(input.size())
    b, c = input.shape[0], input.shape[1]
    shape = (1, b * c) + tuple(input.shape[2:])
    # PyTorch repeats the per-channel tensors b times; expand and reshape
    # here, which carry the gradient (repeat records no node yet)
    rep = (lambda t: t.expand(b, c).reshape(b * c) if t is not None else None)
    rm, rv = rep(running_mean), rep(running_var)
    out = batch_norm(input.contiguous().view(shape), rm, rv, rep(weight), rep(bias), use_input_stats, momentum,
                     eps)
    with torch.no_grad():
        if running_mean is not None:
            running_mean.copy_(rm.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(rv.view(b, c).mean(0))
    return out.view(input.shape)


@autocast_policy(cuda="fp32")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received {}".format(input.dim()))
    n, c = input.shape[0], input.shape[1]
    if c % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input "
                           "of shape {} and num_groups={}".format(list(input.shape), num_groups))
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError("Expected {} to be a vector of size equal to the number of channels in input, but got "
                               "{} of shape {} and input of shape {}".format(name, name, list(t.shape),
                                                                             list(input.shape)))
    _verify_batch_size([n * c // num_groups, num_groups] + list(input.shape[2:]))
    out, _ = _C._native_group_norm(input, weight, bias, num_groups, float(eps))
    return out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    # PyTorch's composition; its avg_pool3d over (size, 1, 1) is avg_pool2d
    # over (size, 1) here, with H and W merged (the same windows)
    from ._padding import pad
    from ._pooling import avg_pool2d
    dim = input.dim()
    if dim < 3:
        # sic: PyTorch's message keeps its source line's indentation
        raise ValueError("Expected 3D or higher dimensionality                          input (got {} dimensions)"
                         .format(dim))
    if input.numel() == 0:
        return input
    div = input.mul(input).unsqueeze(1)
    if dim == 3:
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.reshape(sizes[0], 1, sizes[1], -1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# torch.finfo(dtype).eps of the floating dtypes
_EPS = {torch.float32: 1.1920928955078125e-07, torch.float64: 2.220446049250313e-16,
        torch.float16: 0.0009765625, torch.bfloat16: 0.0078125}


def _normalized_shape(input, normalized_shape):
    """layer_norm's and rms_norm's normalized_shape as a tuple, checked
    against input's last dims with PyTorch's message."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    n = len(normalized_shape)
    if tuple(input.shape[input.dim() - n:]) != normalized_shape:
        raise RuntimeError(
            "Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}".format(
                list(normalized_shape), ", ".join(str(d) for d in normalized_shape), list(input.shape)))
    return normalized_shape


def rms_norm(input, normalized_shape, weight=None, eps=None):
    normalized_shape = _normalized_shape(input, normalized_shape)
    n = len(normalized_shape)
    if eps is None:
        eps = _EPS[input.dtype]
    dims = tuple(range(input.dim() - n, input.dim()))
    out = input * torch.rsqrt(input.pow(2).mean(dims, keepdim=True) + eps)
    if weight is not None:
        out = out * weight
    return out


# -- Modules -----------------------------------------------------------------

class _NormBase(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _optional_parameters(self, affine, num_features, device, dtype)
        if self.track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, **factory))
            self.register_buffer("running_var", torch.ones(num_features, **factory))
            self.register_buffer("num_batches_tracked",
                                 torch.tensor(0, dtype=torch.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self, self.affine)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return "{num_features}, eps={eps}, momentum={momentum}, affine={affine}, " \
               "track_running_stats={track_running_stats}".format(**self.__dict__)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:  # cumulative moving average
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
                else:
                    exponential_average_factor = self.momentum
        if self.training:
            bn_training = True
        else:
            bn_training = (self.running_mean is None) and (self.running_var is None)
        track = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                          self.weight, self.bias, bn_training, exponential_average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError("expected 2D or 3D input (got {}D input)".format(input.dim()))


class BatchNorm2d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError("expected 4D input (got {}D input)".format(input.dim()))


class BatchNorm3d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError("expected 5D input (got {}D input)".format(input.dim()))


class _InstanceNorm(_NormBase):
    _no_batch_dim = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        self._check_input_dim(input)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _check_input_dim(self, input):
        # unbatched (C, *spatial) or batched (N, C, *spatial)
        n = self._no_batch_dim
        if input.dim() not in (n, n + 1):
            raise ValueError("expected {}D or {}D input (got {}D input)".format(n, n + 1, input.dim()))

    def _apply_instance_norm(self, input):
        return instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                             self.training or not self.track_running_stats, self.momentum, self.eps)


class InstanceNorm1d(_InstanceNorm):
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    _no_batch_dim = 4


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _optional_parameters(self, affine, num_channels, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self, self.affine)

    def forward(self, input):
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{num_groups}, {num_channels}, eps={eps}, affine={affine}".format(**self.__dict__)


class RMSNorm(_LastDimsNorm):
    _affine_names = ("weight",)

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__(normalized_shape, eps, elementwise_affine, device, dtype)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)


