"""DataLoader (torch/utils/data/dataloader.py upstream), in this process.

Tensorscope runs the workload in one Python interpreter that drives the
simulated devices, so worker processes are not modeled: num_workers > 0
loads in the main process, as num_workers=0 does, and says so once on
stderr. What comes out (batches, their order, pinned memory) is what
PyTorch gives; only the loading is not parallel."""

import sys

import torch

from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler
from ._utils.collate import default_collate, default_convert
from ._utils.pin_memory import pin_memory as _pin

_warned_workers = False


def _warn_workers(num_workers):
    global _warned_workers
    if not _warned_workers:
        _warned_workers = True
        print("tensorscope: DataLoader(num_workers=%d) loads in the main process; worker processes "
              "are not modeled" % num_workers, file=sys.stderr)


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers=False, pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let "
                             "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.persistent_workers = persistent_workers
        self._iterable = isinstance(dataset, IterableDataset)

        if self._iterable:
            if isinstance(shuffle, bool) and shuffle:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 "but got shuffle={}".format(shuffle))
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, "
                                 "but got sampler={}".format(sampler))
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler "
                                 "option, but got batch_sampler={}".format(batch_sampler))
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive "
                             "with drop_last")

        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        auto_batch = batch_size is not None or batch_sampler is not None
        self.collate_fn = collate_fn or (default_collate if auto_batch else default_convert)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def _batches(self):
        if self._iterable:
            if self.batch_size is None:
                for item in self.dataset:
                    yield self.collate_fn(item)
                return
            batch = []
            for item in self.dataset:
                batch.append(item)
                if len(batch) == self.batch_size:
                    yield self.collate_fn(batch)
                    batch = []
            if batch and not self.drop_last:
                yield self.collate_fn(batch)
            return
        if self.batch_sampler is not None:
            for idx in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in idx])
            return
        for i in self.sampler:
            yield self.collate_fn(self.dataset[i])

    def __iter__(self):
        # PyTorch's iterator draws its workers' base seed first, from the
        # loader's generator (or the global one), even with no workers: the
        # shuffle order after it depends on that draw.
        torch.empty((), dtype=torch.int64).random_(generator=self.generator)
        if self.num_workers > 0:
            _warn_workers(self.num_workers)
            if self.worker_init_fn is not None:
                self.worker_init_fn(0)
        for batch in self._batches():
            yield _pin(batch) if self.pin_memory else batch

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
            return n
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)


__all__ = ["DataLoader", "Sampler"]
