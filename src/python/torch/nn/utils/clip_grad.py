"""clip_grad_norm_ and clip_grad_value_, as PyTorch 1.13 computes them (the
per-parameter norms first, then the norm of their stack; the clip factor is
clamped to 1 and multiplied in, so no parameter is scaled up)."""

import math
import warnings

import torch
from torch._foreach import _vector_norm


def _inf(norm_type):
    return norm_type == math.inf or norm_type == float('inf')


def _by_device(grads):
    """PyTorch 2.x's _group_tensors_by_device_and_dtype, in first-seen order"""
    groups = {}
    for g in grads:
        groups.setdefault((str(g.device), g.dtype), []).append(g)
    return list(groups.values())


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if len(grads) == 0:
        return torch.tensor(0.)
    device = grads[0].device
    with torch.no_grad():
        groups = _by_device(g.detach() for g in grads)
        if foreach is None or foreach:
            # PyTorch 2.x: one _foreach_norm per device and dtype (CPU too)
            norms = [n for group in groups for n in torch._foreach_norm(group, norm_type)]
        else:
            norms = [_vector_norm(g, norm_type) for group in groups for g in group]
        norms = [n.to(device) for n in norms]
        if _inf(norm_type):
            total_norm = norms[0] if len(norms) == 1 else torch.max(torch.stack(norms))
        else:
            total_norm = _vector_norm(torch.stack(norms), norm_type)
        if error_if_nonfinite and (bool(torch.isnan(total_norm)) or bool(torch.isinf(total_norm))):
            raise RuntimeError(
                f'The total norm of order {norm_type} for gradients from '
                '`parameters` is non-finite, so it cannot be clipped. To disable '
                'this error and scale the gradients by the non-finite norm anyway, '
                'set `error_if_nonfinite=False`')
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
        for group in groups:
            if foreach is None or foreach:
                torch._foreach_mul_(group, clip_coef_clamped.to(group[0].device))
            else:
                for g in group:
                    g.mul_(clip_coef_clamped.to(g.device))
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2., error_if_nonfinite=False, foreach=None):
    warnings.warn("torch.nn.utils.clip_grad_norm is now deprecated in favor "
                  "of torch.nn.utils.clip_grad_norm_.", stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    with torch.no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
