# softmax and log_softmax (torch.*, Tensor.*, nn.functional.*): along each
# dim of a strided 3-d tensor, numerically stable for large inputs, NaN and
# -inf, dtype=, 0-dim and empty inputs and PyTorch's errors, on CPU and
# CUDA tensors; expectations generated with Debian's python3-torch (PyTorch
# 1.13) on CPU.
import torch
import torch.nn.functional as F

from op_results import DEVICES, t

base = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) * 0.37 - 3.0
for dev in DEVICES:
    x = base.to(dev)
    for dim in [0, 1, 2, -1]:
        t("softmax dim %d" % dim, lambda: torch.softmax(x, dim))
        t("log_softmax dim %d" % dim, lambda: torch.log_softmax(x, dim))
    t("transposed", lambda: x.transpose(0, 2).softmax(1))
    t("method log_softmax", lambda: x.log_softmax(dim=-1))
    t("large", lambda: torch.softmax(torch.tensor([1000.0, 1001.0, -1000.0], device=dev), 0))
    t("log large", lambda: torch.log_softmax(torch.tensor([1000.0, 1001.0, -1000.0], device=dev), 0))
    t("nan", lambda: torch.softmax(torch.tensor([[1.0, float("nan")], [1.0, 2.0]], device=dev), 1))
    t("-inf", lambda: torch.softmax(torch.tensor([[float("-inf"), 0.0], [float("-inf"), float("-inf")]], device=dev), 1))
    t("float64", lambda: torch.softmax(x.double(), 2))
    t("dtype=float64", lambda: torch.softmax(x, 1, dtype=torch.float64))
    t("int with dtype=", lambda: torch.log_softmax(torch.tensor([1, 2, 3], device=dev), 0, dtype=torch.float32))
    t("int", lambda: torch.softmax(torch.tensor([1, 2, 3], device=dev), 0))
    t("int dim 0 of 2", lambda: torch.log_softmax(torch.tensor([[1, 2, 3]], device=dev), 0))
    t("bool", lambda: torch.softmax(torch.tensor([True], device=dev), 0))
    t("0-dim", lambda: torch.softmax(torch.tensor(3.0, device=dev), 0))
    t("0-dim log", lambda: torch.log_softmax(torch.tensor(3.0, device=dev), -1))
    t("empty", lambda: torch.softmax(torch.empty(0, 3, device=dev), 1))
    t("dim out of range", lambda: torch.softmax(x, 3))
    t("F.softmax", lambda: F.softmax(x, dim=1))
    t("F.log_softmax dtype", lambda: F.log_softmax(x, dim=0, dtype=torch.float64))

# the modules
t("nn.Softmax", lambda: torch.nn.Softmax(dim=1)(base))
t("nn.LogSoftmax", lambda: torch.nn.LogSoftmax(-1)(base))
print(torch.nn.Softmax(dim=1), torch.nn.LogSoftmax())
