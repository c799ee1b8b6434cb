"""torch.backends: the flags that choose how kernels compute.

They are real, settable state with PyTorch's defaults; the kernels do not
read them yet. Whoever makes the matmul kernels honor TF32 and reduced
precision reductions must read torch.backends.cuda.matmul's flags (the
float32 matmul precision below) and torch.backends.cudnn's.
"""

from torch import _unmodeled

from . import cuda, cudnn, mps  # noqa: F401

__getattr__ = _unmodeled.module_getattr(__name__)


def _check_bool(setter, value):
    """PyTorch's check of a flag's new value, with its setter's name."""
    if not isinstance(value, bool):
        raise RuntimeError("%s expects a bool, but got %s" % (setter, type(value).__name__))
    return value
