"""torch.nn: the parts of PyTorch's Python layer that workloads use."""

from torch import _unmodeled

from . import functional, init, parallel  # noqa: F401
from .modules import (Embedding, Identity, Linear, LogSoftmax, Module, ReLU, Sequential, Sigmoid,  # noqa: F401
                      Softmax, Tanh)
from .parallel import DataParallel  # noqa: F401
from .parameter import Parameter  # noqa: F401

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
