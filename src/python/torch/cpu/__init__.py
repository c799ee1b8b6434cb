"""torch.cpu: its amp (autocast for device_type 'cpu')."""

from torch import _unmodeled

from . import amp  # noqa: F401

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
