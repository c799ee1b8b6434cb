# Binary ops by name: torch.pow/remainder/fmod/logical_xor/floor_divide/
# bitwise_*/eq..., their in-place forms and out=, with promotion,
# broadcasting, Python scalars on either side and dtype errors, on CPU and
# CUDA tensors; expectations generated with Debian's python3-torch
# (PyTorch 1.13) on CPU.
import torch

from op_results import DEVICES, t

for dev in DEVICES:
    f = torch.tensor([[5.5, -7.0, 2.0], [-0.5, 3.25, -4.0]], device=dev)
    i = torch.tensor([7, -7, 9], device=dev)
    b = torch.tensor([True, False, True], device=dev)
    col = torch.tensor([[2.0], [-3.0]], device=dev)
    for name in ["fmod", "remainder"]:
        op = getattr(torch, name)
        t(name + " float", lambda: op(f, 2))
        t(name + " broadcast", lambda: op(f, col))
        t(name + " int", lambda: op(i, torch.tensor([3, 3, -4], device=dev)))
        t(name + " int by float", lambda: op(i, 2.5))
        t(name + " float by 0", lambda: op(f, 0))
        t(name + " method", lambda: getattr(f, name)(-1.5))
        t(name + "_", lambda: getattr(f.clone(), name + "_")(col))
        t(name + "_ int by float", lambda: getattr(i.clone(), name + "_")(2.5))
        t(name + " out=", lambda: op(f, 3, out=torch.empty(2, 3, device=dev)))
    t("remainder scalar self", lambda: torch.remainder(5, i))
    t("pow", lambda: torch.pow(f, 2))
    t("pow tensor exponent", lambda: torch.pow(i, torch.tensor([2, 0, 1], device=dev)))
    t("pow int by float", lambda: torch.pow(i, 0.5))
    t("pow scalar base", lambda: torch.pow(2, i))
    t("pow float scalar base", lambda: torch.pow(2.5, i))
    t("rpow", lambda: 3 ** f)
    t("pow_", lambda: f.clone().pow_(col))
    t("pow out=", lambda: torch.pow(f, 2, out=torch.empty(2, 3, device=dev)))
    t("logical_xor", lambda: torch.logical_xor(f, col))
    t("logical_xor bool", lambda: b.logical_xor(torch.tensor([True, True, False], device=dev)))
    t("logical_xor_", lambda: f.clone().logical_xor_(col))
    t("logical_and out=", lambda: torch.logical_and(i, b, out=torch.empty(3, dtype=torch.bool, device=dev)))
    t("floor_divide", lambda: torch.floor_divide(f, col))
    t("bitwise_and", lambda: torch.bitwise_and(i, 6))
    t("bitwise_or_", lambda: i.clone().bitwise_or_(8))
    t("bitwise_xor bool", lambda: torch.bitwise_xor(b, True))
    t("bitwise_and float", lambda: torch.bitwise_and(f, 1))
    t("eq", lambda: torch.eq(i, 7))
    t("lt broadcast", lambda: torch.lt(f, col))
    t("ge_", lambda: f.clone().ge_(0))
    t("maximum out=", lambda: torch.maximum(i, torch.tensor([0, 0, 0], device=dev), out=torch.empty(3, dtype=torch.int64, device=dev)))
    t("fmod out= wrong dtype", lambda: torch.fmod(f, 2, out=torch.empty(2, 3, dtype=torch.int64, device=dev)))
    t("fmod empty", lambda: torch.fmod(torch.empty(0, device=dev), 2))

# on CPU only: PyTorch's CUDA kernels leave an integer division by zero
# undefined
for name in ["fmod", "remainder", "floor_divide"]:
    t(name + " int by 0", lambda: getattr(torch, name)(torch.tensor([7, -7]), 0))
    t(name + " int by 0 tensor", lambda: getattr(torch, name)(torch.tensor([7, -7]), torch.tensor([1, 0])))
