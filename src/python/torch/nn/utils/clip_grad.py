"""clip_grad_norm_ and clip_grad_value_, as PyTorch 1.13 computes them (the
per-parameter norms first, then the norm of their stack; the clip factor is
clamped to 1 and multiplied in, so no parameter is scaled up)."""

import math
import warnings

import torch


def _inf(norm_type):
    return norm_type == math.inf or norm_type == float('inf')


def _vector_norm(x, p):
    # torch.linalg.vector_norm is not modeled yet: composed from reductions
    if p == 2.0:
        return x.mul(x).sum().sqrt()
    if p == 1.0:
        return x.abs().sum()
    if p == 0.0:
        return (x != 0).sum().to(x.dtype)
    return x.abs().pow(p).sum().pow(1.0 / p)


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
        if _inf(norm_type):
            norms = [g.detach().abs().max().to(device) for g in grads]
            total_norm = norms[0] if len(norms) == 1 else torch.max(torch.stack(norms))
        else:
            total_norm = _vector_norm(
                torch.stack([_vector_norm(g.detach(), norm_type).to(device) for g in grads]), norm_type)
        if error_if_nonfinite and (bool(torch.isnan(total_norm)) or bool(torch.isinf(total_norm))):
            raise RuntimeError(
                f'The total norm of order {norm_type} for gradients from '
                '`parameters` is non-finite, so it cannot be clipped. To disable '
                'this error and scale the gradients by the non-finite norm anyway, '
                'set `error_if_nonfinite=False`')
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
        for g in grads:
            g.detach().mul_(clip_coef_clamped.to(g.device))
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
