from .dataloader import DataLoader  # noqa: F401
from .dataset import Dataset, TensorDataset  # noqa: F401

from torch import _unmodeled as _unmodeled  # noqa: E402
__getattr__ = _unmodeled.module_getattr(__name__)
