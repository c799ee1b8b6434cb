"""A single-process DataLoader with pin_memory (torch/utils/data upstream)."""

import random

from ._utils.collate import default_collate
from ._utils.pin_memory import pin_memory as _pin


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, **kwargs):
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.collate_fn = collate_fn or default_collate
        self.pin_memory = pin_memory
        self.drop_last = drop_last
        self.num_workers = num_workers

    def __iter__(self):
        order = list(range(len(self.dataset)))
        if self.shuffle:
            random.shuffle(order)
        bs = self.batch_size or 1
        for i in range(0, len(order), bs):
            idx = order[i:i + bs]
            if self.drop_last and len(idx) < bs:
                break
            batch = self.collate_fn([self.dataset[j] for j in idx])
            yield _pin(batch) if self.pin_memory else batch

    def __len__(self):
        n = len(self.dataset)
        bs = self.batch_size or 1
        return n // bs if self.drop_last else (n + bs - 1) // bs
