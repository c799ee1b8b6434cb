"""torch.backends.mps: Tensorscope models CUDA devices only."""

from torch import _unmodeled

__getattr__ = _unmodeled.module_getattr(__name__)


def is_available():
    return False


def is_built():
    return False
