"""torch.nn.utils: gradient clipping."""

from torch import _unmodeled

from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_  # noqa: F401

__getattr__ = _unmodeled.module_getattr(__name__)
