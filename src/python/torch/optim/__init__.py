"""torch.optim: PyTorch's optimizers over Tensorscope's tensor ops."""

from torch import _unmodeled

from . import lr_scheduler  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .more import Adadelta, Adamax, NAdam, RAdam  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .rmsprop import Adagrad, RMSprop  # noqa: F401
from .sgd import SGD  # noqa: F401

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
