# Inputs shared by the linalg_* workloads (not a workload: no .expected):
# deterministic, full-rank matrices from sines and cosines of their
# element index, the same under Tensorscope and PyTorch 1.13.
import torch


def mat(*shape, seed=0.0, dtype=torch.float64):
    n = 1
    for s in shape:
        n *= s
    x = torch.arange(n, dtype=torch.float64)
    return ((x * 0.7 + seed).sin() + 0.5 * (x * x * 0.13).cos()).reshape(shape).to(dtype)
