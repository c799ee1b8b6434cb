# scatter/scatter_ (tensor and value sources) and scatter_add/scatter_add_
# (aten::scatter_, aten::scatter_add_ into self): repeated indices (the
# last write wins; sums accumulate), dtypes, empty indices and error texts.
# The CPU's index bounds error comes from its kernel; a CUDA kernel finds
# out on the device, so those cases run on the CPU only.
import torch

from opcheck import DEV, t


for dev in ("cpu", DEV):
    x = torch.zeros(2, 3, device=dev)
    idx = torch.tensor([[0, 1, 2], [2, 0, 0]], device=dev)
    src = torch.arange(6.0, device=dev).reshape(2, 3)
    print("--- pass")
    t("scatter_add", lambda: x.scatter_add(1, idx, src))
    t("torch.scatter_add", lambda: torch.scatter_add(x, 0, idx[:1] % 2, src))
    t("scatter", lambda: x.scatter(1, idx, src))
    t("scatter value", lambda: x.scatter(1, idx, 7.5))
    t("scatter value kw", lambda: torch.scatter(x, 0, idx[:, :2] % 2, value=-1.0))

    def inplace():
        y = torch.zeros(3, dtype=torch.int64, device=dev)
        r = y.scatter_add_(0, torch.tensor([0, 0, 2], device=dev), torch.tensor([1, 2, 3], device=dev))
        return r is y, y

    t("scatter_add_ int", lambda: inplace()[1])
    t("scatter_add_ returns self", lambda: inplace()[0])
    t("scatter_ small index", lambda: torch.ones(3, 4, device=dev).scatter_(0, torch.tensor([[2, 1]], device=dev),
                                                                             src))
    t("scatter_add strided src", lambda: x.scatter_add(1, idx, src.t().t()))
    t("scatter_add empty index", lambda: x.scatter_add(1, torch.zeros(2, 0, dtype=torch.long, device=dev), src))
    t("scatter_add 1-d empty", lambda: x.scatter_add(1, torch.zeros(0, dtype=torch.long, device=dev), src))
    t("index int32", lambda: x.scatter_add(1, idx.int(), src))
    t("src dtype", lambda: x.scatter_add(1, idx, src.double()))
    t("index rank", lambda: x.scatter_add(1, idx[0], src))
    t("index size", lambda: x.scatter_add(1, torch.zeros(3, 3, dtype=torch.long, device=dev), src))
    t("bad dim", lambda: x.scatter_add(2, idx, src))
    t("index high", lambda: x.cpu().scatter_add(1, torch.tensor([[5]]), src.cpu()))
    t("index negative", lambda: x.cpu().scatter(1, torch.tensor([[-1]]), src.cpu()))
