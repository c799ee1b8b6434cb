# bitwise_not and the shifts (torch.bitwise_left_shift/right_shift, << >>
# and their in-place forms) over the integer dtypes and bool, with Python
# scalars, broadcasting and PyTorch's dtype errors, on CPU and CUDA
# tensors; expectations generated with Debian's python3-torch (PyTorch
# 1.13) on CPU. Shifts past the dtype's width are left out: PyTorch 1.13
# leaves them to the C++ shift (undefined), PyTorch 2 defines them.
import torch

from op_results import DEVICES, t

for dev in DEVICES:
    a = torch.tensor([1, -8, 5, 3], device=dev)
    t("<< scalar", lambda: a << 2)
    t(">> scalar", lambda: a >> 1)
    t("<< tensor", lambda: a << torch.tensor([0, 1, 3, 62], device=dev))
    t(">> tensor", lambda: a >> torch.tensor([0, 1, 2, 63], device=dev))
    t("<< broadcast", lambda: a << torch.tensor([[1], [2]], device=dev))
    t("uint8 <<", lambda: torch.tensor([1, 2, 255], dtype=torch.uint8, device=dev) << 7)
    t("int8 <<", lambda: torch.tensor([1, 2, -1], dtype=torch.int8, device=dev) << 7)
    t("int16 >>", lambda: torch.tensor([-300, 300], dtype=torch.int16, device=dev) >> 3)
    t("int32 bitwise_left_shift", lambda: torch.bitwise_left_shift(torch.tensor([3], dtype=torch.int32, device=dev), 30))
    t("bitwise_right_shift method", lambda: a.bitwise_right_shift(torch.tensor(1, device=dev)))
    t("<<=", lambda: (lambda x: (x.__ilshift__(3), x)[1])(a.clone()))
    t("bitwise_right_shift_", lambda: a.clone().bitwise_right_shift_(2))
    t("bool << int", lambda: torch.tensor([True, False], device=dev) << 1)
    t("bool >> bool", lambda: torch.bitwise_right_shift(torch.tensor([True], device=dev), torch.tensor([True], device=dev)))
    t("float <<", lambda: torch.tensor([1.5], device=dev) << 1)
    t("int >> float", lambda: torch.tensor([4], device=dev) >> 1.5)
    t("bitwise_not", lambda: torch.bitwise_not(a))
    t("bitwise_not uint8", lambda: torch.tensor([0, 200], dtype=torch.uint8, device=dev).bitwise_not())
    t("bitwise_not bool", lambda: torch.bitwise_not(torch.tensor([True, False], device=dev)))
    t("bitwise_not_", lambda: a.clone().bitwise_not_())
    t("bitwise_not float", lambda: torch.bitwise_not(torch.tensor([1.5], device=dev)))
    t("bitwise_not empty", lambda: torch.bitwise_not(torch.empty(0, dtype=torch.int64, device=dev)))
