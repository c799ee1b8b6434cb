# ChainDataset and IterableDataset + IterableDataset, through a DataLoader,
# and get_worker_info() in the main process. The expected output is what
# Debian's python3-torch 1.13 prints for this script.
import torch
from torch.utils.data import ChainDataset, IterableDataset, DataLoader, get_worker_info
class R(IterableDataset):
    def __init__(self, a, b): self.a, self.b = a, b
    def __iter__(self): return iter(range(self.a, self.b))
    def __len__(self): return self.b - self.a
c = R(0, 3) + R(10, 12)
print(type(c).__name__, list(c), len(c), list(ChainDataset([R(1, 2), R(5, 7)])))
print([b.tolist() for b in DataLoader(c, batch_size=2)], get_worker_info())
