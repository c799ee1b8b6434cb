"""torch.nn: the parts of PyTorch's Python layer that workloads use."""

from . import functional, init, parallel  # noqa: F401
from .modules import Embedding, Identity, Linear, Module, ReLU, Sequential  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from .parameter import Parameter  # noqa: F401

from torch import _unmodeled as _unmodeled  # noqa: E402
__getattr__ = _unmodeled.module_getattr(__name__)
