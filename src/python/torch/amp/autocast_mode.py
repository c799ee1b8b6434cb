"""torch.autocast: PyTorch 1.13's context manager and decorator.

The state is the core's (src/core/aten/ts-autocast.c: per thread, per
device type) and so is the policy of every op of the op table (its
AUTOCAST column). The composite ops of our torch package (F.linear,
F.mse_loss, ...) take theirs from autocast_policy below, the one helper
for them. docs/amp.md.
"""

import functools
import warnings

import torch
from torch import _C

__all__ = ["autocast", "autocast_policy", "autocast_decorator"]


def _device_type(device_type):
    if device_type not in ("cuda", "cpu"):
        raise RuntimeError("User specified autocast device_type must be 'cuda' or 'cpu'")
    return device_type


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    decorate_autocast.__script_unsupported = "@autocast() decorator is not supported in script mode"
    return decorate_autocast


class autocast(object):
    """Ops in the region run in the dtype their policy picks: float16 (or
    bfloat16) for matmuls, float32 for precision-sensitive ones."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = _device_type(device_type)
        self.fast_dtype = _C._autocast_get_dtype(self.device)
        self._cache_enabled = _C._autocast_is_cache_enabled()
        if enabled and self.device == "cuda" and not torch.cuda.is_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
            enabled = False
        if dtype is not None:
            self.fast_dtype = dtype
        if cache_enabled is not None:
            self._cache_enabled = cache_enabled
        if self.device == "cpu" and self.fast_dtype not in (torch.bfloat16,):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtype of torch.bfloat16 currently.")
            enabled = False
        if self.device == "cuda" and self.fast_dtype == torch.bfloat16 and not torch.cuda.is_bf16_supported():
            raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _C._autocast_is_cache_enabled()
        self.prev = _C._autocast_is_enabled(self.device)
        self.prev_fastdtype = _C._autocast_get_dtype(self.device)
        _C._autocast_set_enabled(self.device, self._enabled)
        _C._autocast_set_dtype(self.device, self.fast_dtype)
        _C._autocast_increment_nesting()
        _C._autocast_set_cache_enabled(self._cache_enabled)
        # A region entered during backward is in effect there too: the
        # engine excludes autocast from the backward formulas only
        # (checkpoint's recomputation enters the forward's region).
        self.prev_excluded = _C._autocast_set_excluded(False)

    def __exit__(self, exc_type, exc_val, exc_tb):
        _C._autocast_set_excluded(self.prev_excluded)
        # leaving the outermost region drops the cached weight casts
        if _C._autocast_decrement_nesting() == 0:
            _C._autocast_clear_cache()
        _C._autocast_set_enabled(self.device, self.prev)
        _C._autocast_set_dtype(self.device, self.prev_fastdtype)
        _C._autocast_set_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        return autocast_decorator(self, func)


# -- The policy of composite ops ---------------------------------------------

_BCE_BANNED = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")


def _tensors(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, torch.Tensor):
            yield a


def _target(policy, device, tensors):
    if policy == "lower":
        return _C._autocast_get_dtype(device)
    if policy == "fp32":
        return torch.float32
    # promote: the widest floating dtype autocast may touch
    widest = None
    for t in tensors:
        if t.dtype.is_floating_point and t.dtype != torch.float64 and t.device.type == device:
            widest = t.dtype if widest is None else torch.promote_types(widest, t.dtype)
    return widest


def autocast_policy(cuda=None, cpu=None):
    """Decorates a composite op of our torch package with its autocast
    policy per device type, as the AUTOCAST column does for the op table:
    "lower", "fp32", "promote", "banned" (CUDA's binary_cross_entropy) or
    None. Inside a region its tensor arguments are cast (through the
    core's cache) and its body runs with autocast excluded, as one ATen
    op would."""
    policies = {"cuda": cuda, "cpu": cpu}

    def decorate(func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            # outside autocast (most calls) the arguments need no look
            if not _C._autocast_any_enabled():
                return func(*args, **kwargs)
            first = next(_tensors(args, kwargs), None)
            device = first.device.type if first is not None else None
            policy = policies.get(device)
            if policy is None or not _C._autocast_is_enabled(device):
                return func(*args, **kwargs)
            prev = _C._autocast_set_excluded(True)
            try:
                if prev:
                    return func(*args, **kwargs)
                if policy == "banned":
                    raise RuntimeError(_BCE_BANNED)
                to = _target(policy, device, _tensors(args, kwargs))
                if to is not None:
                    args = [_C._autocast_cast(a, device, to) for a in args]
                    kwargs = {k: _C._autocast_cast(v, device, to) for k, v in kwargs.items()}
                return func(*args, **kwargs)
            finally:
                _C._autocast_set_excluded(prev)
        return run
    return decorate
