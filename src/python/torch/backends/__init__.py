"""torch.backends: the flags that choose how kernels compute.

They are real, settable state with PyTorch's defaults. The simulator's
matmul cost reads the float32 matmul precision (torch.backends.cuda.matmul
.allow_tf32: the TF32 rate); the values do not change with it, and the
reduced precision reductions and torch.backends.cudnn's flags are state
only.
"""

from torch import _unmodeled

from . import cuda, cudnn, mkldnn, mps, openmp  # noqa: F401

__getattr__ = _unmodeled.module_getattr(__name__)


def _check_bool(setter, value):
    """PyTorch's check of a flag's new value, with its setter's name."""
    if not isinstance(value, bool):
        raise RuntimeError("%s expects a bool, but got %s" % (setter, type(value).__name__))
    return value
