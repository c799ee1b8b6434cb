from torch import _unmodeled

from ._utils.collate import default_collate, default_convert  # noqa: F401
from .dataloader import DataLoader  # noqa: F401
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset,  # noqa: F401
                      TensorDataset, random_split)


def get_worker_info():
    """None: DataLoader loads in the main process here (worker processes are
    not modeled), which is what PyTorch says in the main process too."""
    return None
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
                      SubsetRandomSampler, WeightedRandomSampler)

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
