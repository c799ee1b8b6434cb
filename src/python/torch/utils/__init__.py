from torch import _unmodeled

from . import checkpoint, data, hooks  # noqa: F401

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
