# torch.linspace: PyTorch's halfway-symmetric values (both ends exact) in
# every kind of dtype, descending, 0 and 1 steps, the step count's error,
# on CPU and CUDA tensors; expectations generated with Debian's
# python3-torch (PyTorch 1.13) on CPU.
import torch

from op_results import DEVICES, t

for dev in DEVICES:
    t("float", lambda: torch.linspace(0, 1, 5, device=dev))
    t("float 7 steps", lambda: torch.linspace(-1.3, 2.9, 7, device=dev))
    t("descending float64", lambda: torch.linspace(10, -1, 7, dtype=torch.float64, device=dev))
    t("int64", lambda: torch.linspace(-3, 7, 4, dtype=torch.int64, device=dev))
    t("int32", lambda: torch.linspace(0, 10, 4, dtype=torch.int32, device=dev))
    t("uint8", lambda: torch.linspace(0.5, 9.7, 5, dtype=torch.uint8, device=dev))
    t("float16", lambda: torch.linspace(0, 1, 6, dtype=torch.float16, device=dev))
    t("one step", lambda: torch.linspace(2, 3, 1, device=dev))
    t("no steps", lambda: torch.linspace(0, 1, 0, device=dev))
    t("negative steps", lambda: torch.linspace(0, 1, -2, device=dev))
    t("tensor ends", lambda: torch.linspace(torch.tensor(1.0), torch.tensor(2.0), 3, device=dev))
