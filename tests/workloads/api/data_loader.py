# DataLoader, samplers and datasets against PyTorch 1.13: the order of a
# seeded shuffle, drop_last, batch_size=None, collate_fn, sampler and
# batch_sampler, iterable datasets, random_split, ConcatDataset, and the
# option errors.
import torch
from torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler,
                              SequentialSampler, Subset, SubsetRandomSampler, TensorDataset, random_split)


def t(label, f):
    try:
        print(label, "->", f())
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


ds = TensorDataset(torch.arange(20.0).reshape(10, 2), torch.arange(10))


def batches(loader):
    return [(x.tolist(), y.tolist()) for x, y in loader]


t("sequential", lambda: batches(DataLoader(ds, batch_size=4)))
t("drop_last", lambda: batches(DataLoader(ds, batch_size=4, drop_last=True)))
t("len", lambda: (len(DataLoader(ds, batch_size=4)), len(DataLoader(ds, batch_size=4, drop_last=True))))
torch.manual_seed(0)
t("shuffle", lambda: [y.tolist() for _, y in DataLoader(ds, batch_size=3, shuffle=True)])
t("shuffle again", lambda: [y.tolist() for _, y in DataLoader(ds, batch_size=3, shuffle=True)])
g = torch.Generator()
g.manual_seed(7)
t("generator", lambda: [y.tolist() for _, y in DataLoader(ds, batch_size=5, shuffle=True, generator=g)])
t("batch_size=None", lambda: [(x.tolist(), y.item()) for x, y in DataLoader(ds, batch_size=None)][:3])
t("collate_fn", lambda: list(DataLoader(range(7), batch_size=3, collate_fn=lambda b: sum(b))))
t("default collate ints", lambda: [b.tolist() for b in DataLoader(list(range(5)), batch_size=2)])
t("default collate dicts", lambda: [{k: v.tolist() for k, v in b.items()}
                                    for b in DataLoader([{"a": i, "b": float(i)} for i in range(4)], batch_size=2)])
t("sampler", lambda: [y.tolist() for _, y in DataLoader(ds, batch_size=2, sampler=[9, 0, 5, 5])])
t("batch_sampler", lambda: [y.tolist() for _, y in DataLoader(ds, batch_sampler=[[1, 2], [3], [0, 9, 8]])])
t("BatchSampler", lambda: list(BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)))
t("BatchSampler drop", lambda: list(BatchSampler(range(7), 3, drop_last=True)))
torch.manual_seed(1)
t("RandomSampler", lambda: list(RandomSampler(range(6))))
t("RandomSampler num_samples", lambda: list(RandomSampler(range(4), num_samples=10)))
t("RandomSampler replacement", lambda: list(RandomSampler(range(5), replacement=True, num_samples=40)))
t("SubsetRandomSampler", lambda: list(SubsetRandomSampler([10, 20, 30, 40])))
t("sampler and shuffle", lambda: DataLoader(ds, sampler=[0], shuffle=True))
t("batch_sampler and batch_size", lambda: DataLoader(ds, batch_size=2, batch_sampler=[[0]]))
t("None and drop_last", lambda: DataLoader(ds, batch_size=None, drop_last=True))
t("negative workers", lambda: DataLoader(ds, num_workers=-1))
t("RandomSampler bad num_samples", lambda: RandomSampler(range(3), num_samples=0))
t("BatchSampler bad size", lambda: BatchSampler(range(3), 0, False))


class Count(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


t("iterable", lambda: [b.tolist() for b in DataLoader(Count(7), batch_size=3)])
t("iterable drop_last", lambda: [b.tolist() for b in DataLoader(Count(7), batch_size=3, drop_last=True)])
t("iterable shuffle", lambda: DataLoader(Count(3), shuffle=True))
cat = ConcatDataset([range(3), range(10, 14)])
t("concat", lambda: (len(cat), [cat[i] for i in range(len(cat))], cat[-1]))
t("dataset add", lambda: len(ds + ds))
t("subset", lambda: (len(Subset(range(10), [1, 3])), Subset(range(10), [1, 3])[1]))
torch.manual_seed(2)
t("random_split", lambda: [list(s) for s in random_split(range(10), [3, 7])])
t("random_split fractions", lambda: [len(s) for s in random_split(range(10), [0.5, 0.3, 0.2],
                                                                   generator=torch.Generator().manual_seed(3))])
t("random_split bad", lambda: random_split(range(10), [3, 3]))


class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return torch.tensor([i, i * i])


t("custom dataset", lambda: [b.tolist() for b in DataLoader(Squares(), batch_size=2)])
t("workers in process", lambda: [b.tolist() for b in DataLoader(Squares(), batch_size=5, num_workers=2)])
