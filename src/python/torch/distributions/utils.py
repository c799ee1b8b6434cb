"""Helpers the distributions share: parameters broadcast together, the
probs/logits conversions, the lazily computed parameter."""

from numbers import Number

import torch
import torch.nn.functional as F


def broadcast_all(*values):
    """Tensors and numbers broadcast together; numbers become tensors of the
    first tensor's dtype and device (the default dtype without one)."""
    for v in values:
        if not isinstance(v, (torch.Tensor, Number)):
            raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                             "implementing __torch_function__.")
    options = {"dtype": torch.get_default_dtype()}
    for v in values:
        if isinstance(v, torch.Tensor):
            options = {"dtype": v.dtype, "device": v.device}
            break
    return torch.broadcast_tensors(*[v if isinstance(v, torch.Tensor) else torch.tensor(v, **options)
                                     for v in values])


def _standard_normal(shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def clamp_probs(probs):
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    return torch.sigmoid(logits) if is_binary else F.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(clamped) - torch.log1p(-clamped)
    return torch.log(clamped)


class lazy_property:
    """Computed at first use (with grad mode on, as PyTorch's), then an
    ordinary attribute of the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__name__ = wrapped.__name__
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
