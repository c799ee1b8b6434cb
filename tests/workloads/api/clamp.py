# clamp/clip/clamp_min/clamp_max with scalar and tensor bounds, NaN
# propagation (inputs and bounds), promotion, broadcasting, in-place forms
# and out=, on CPU and CUDA tensors; expectations generated with Debian's
# python3-torch (PyTorch 1.13) on CPU.
import torch

from op_results import DEVICES, t

nan = float("nan")
for dev in DEVICES:
    x = torch.tensor([[-2.5, 0.25, 4.0], [nan, 1.0, -0.5]], device=dev)
    i = torch.tensor([-3, 0, 7], device=dev)
    t("clamp both", lambda: torch.clamp(x, -1, 2))
    t("clamp min", lambda: torch.clamp(x, min=0))
    t("clamp max", lambda: x.clamp(max=0.5))
    t("clamp min > max", lambda: torch.clamp(x, min=3, max=1))
    t("clamp tensor bounds", lambda: torch.clamp(x, torch.tensor([0.0, nan, 1.0], device=dev),
                                                  torch.tensor([[1.0], [2.0]], device=dev)))
    t("clamp int", lambda: torch.clamp(i, -1, 5))
    t("clamp int by float", lambda: torch.clamp(i, 2, 3.5))
    t("clamp int min float", lambda: i.clamp(min=-1.5))
    t("clamp bool", lambda: torch.clamp(torch.tensor([True, False], device=dev), min=0))
    t("clamp none", lambda: torch.clamp(x))
    t("clip", lambda: torch.clip(x, -1, 1))
    t("clip method", lambda: x.clip(0, 1))
    t("clamp_", lambda: x.clone().clamp_(-1, 1))
    t("clamp_ min", lambda: x.clone().clamp_(min=0.5))
    t("clip_", lambda: x.clone().clip_(max=0))
    t("clamp_min", lambda: torch.clamp_min(x, 0.5))
    t("clamp_max", lambda: torch.clamp_max(i, torch.tensor(2, device=dev)))
    t("clamp_min_", lambda: i.clone().clamp_min_(1))
    t("clamp_max_", lambda: x.clone().clamp_max_(torch.tensor([0.0, 0.5, 1.0], device=dev)))
    t("clamp out=", lambda: torch.clamp(x, 0, 1, out=torch.empty(2, 3, device=dev)))
    t("clamp empty", lambda: torch.clamp(torch.empty(0, 2, device=dev), 0, 1))
