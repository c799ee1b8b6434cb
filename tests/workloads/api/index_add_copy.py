# index_add/index_add_ (alpha), index_copy/index_copy_ (aten::index_add_,
# aten::index_copy_: the scatter kernel over the index vector expanded to
# the source's shape) and F.one_hot (zeros, then scatter_, as ATen):
# values, repeated indices, int32 indices, empty sources and error texts.
# Index bounds are checked on the CPU (a CUDA kernel finds out on the
# device): those cases run on the CPU only.
import torch
import torch.nn.functional as F

from opcheck import DEV, t


for dev in ("cpu", DEV):
    x = torch.zeros(3, 2, device=dev)
    src = torch.arange(6.0, device=dev).reshape(3, 2)
    i = torch.tensor([0, 2, 0], device=dev)
    print("--- pass")
    t("index_add", lambda: x.index_add(0, i, src))
    t("index_add alpha", lambda: torch.index_add(x, 0, i, src, alpha=2))
    t("index_add int32", lambda: x.index_add(0, i.int(), src))
    t("index_add dim1", lambda: x.index_add(1, torch.tensor([1, 1, 0], device=dev), torch.ones(3, 3, device=dev)))
    t("index_add int64", lambda: torch.zeros(4, dtype=torch.int64, device=dev).index_add_(
        0, torch.tensor([3, 3], device=dev), torch.tensor([5, 7], device=dev)))
    t("index_add empty", lambda: x.index_add(0, torch.zeros(0, dtype=torch.long, device=dev),
                                             torch.zeros(0, 2, device=dev)))
    t("index_copy", lambda: x.index_copy(0, i, src))
    t("index_copy_", lambda: torch.ones(2, 3, device=dev).index_copy_(1, torch.tensor([2], device=dev),
                                                                      torch.zeros(2, 1, device=dev)))
    t("index_add float index", lambda: x.index_add(0, i.float(), src))
    t("index_add dtype", lambda: x.index_add(0, i, src.double()))
    t("index_add count", lambda: x.index_add(0, i[:2], src))
    t("index_add 2-d index", lambda: x.index_add(0, torch.tensor([[0]], device=dev), src))
    t("index_add slice", lambda: x.index_add(0, i, torch.ones(3, 3, device=dev)))
    t("index_copy int32", lambda: x.index_copy(0, i.int(), src))
    t("index_copy slice", lambda: x.index_copy(0, i, torch.ones(3, 3, device=dev)))
    t("index_add bound", lambda: x.cpu().index_add(0, torch.tensor([5, 0, 0]), src.cpu()))
    t("index_copy bound", lambda: x.cpu().index_copy(0, torch.tensor([5, 0, 0]), src.cpu()))
    t("one_hot", lambda: F.one_hot(torch.tensor([0, 2, 1], device=dev)))
    t("one_hot classes", lambda: F.one_hot(torch.tensor([[0, 2], [1, 1]], device=dev), 4))
    t("one_hot empty", lambda: F.one_hot(torch.zeros(0, dtype=torch.long, device=dev), 3))
    t("one_hot too few", lambda: F.one_hot(torch.tensor([0, 2, 1], device=dev), 2))
    t("one_hot negative", lambda: F.one_hot(torch.tensor([0, -1], device=dev)))
    t("one_hot float", lambda: F.one_hot(torch.tensor([0.0, 1.0], device=dev)))
    t("one_hot empty infer", lambda: F.one_hot(torch.zeros(0, dtype=torch.long, device=dev)))
