from torch import _unmodeled

from ._utils.collate import default_collate  # noqa: F401
from .dataloader import DataLoader  # noqa: F401
from .dataset import Dataset, TensorDataset  # noqa: F401

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
