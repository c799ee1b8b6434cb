"""torch.cuda.amp: torch.amp's autocast and GradScaler for device_type
'cuda' (docs/amp.md)."""

import functools

import torch
from torch.amp import autocast_mode, grad_scaler

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(autocast_mode.autocast):
    def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    def __init__(self, init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """PyTorch's custom_fwd: with cast_inputs, fwd runs with autocast off
    over inputs cast to that dtype inside a region."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)
    if cast_inputs is None:
        return fwd

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        if not torch.is_autocast_enabled():
            return fwd(*args, **kwargs)
        args = [a.to(cast_inputs) if isinstance(a, torch.Tensor) and a.is_cuda and a.dtype.is_floating_point
                and a.dtype != torch.float64 else a for a in args]
        with autocast(enabled=False):
            return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd):
    return bwd
