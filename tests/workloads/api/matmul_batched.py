# Batched and broadcast matmul (one aten::bmm launch) and torch.bmm: shapes,
# values (small integers, exact in any summation order), dtypes, empty
# operands and at::matmul's error texts for each of its paths (the folded
# mm/mv and the broadcast bmm). The expected output was generated with
# Debian's python3-torch (PyTorch 1.13, CPU) running this same script: there
# both passes run on the CPU; under Tensorscope the second runs on CUDA.
import torch

from opcheck import DEV, t


for dev in ("cpu", DEV):
    def ar(*shape, dtype=torch.float32):
        n = 1
        for s in shape:
            n *= s
        return (torch.arange(n, device=dev) % 7 - 3).to(dtype).reshape(*shape)

    a3, b3 = ar(2, 3, 4), ar(2, 4, 5)
    print("--- pass")
    t("3d@3d", lambda: a3 @ b3)
    t("matmul", lambda: torch.matmul(a3, b3))
    t("Tensor.matmul", lambda: a3.matmul(b3))
    t("bmm", lambda: torch.bmm(a3, b3))
    t("Tensor.bmm", lambda: a3.bmm(b3))
    t("bmm f64", lambda: torch.bmm(ar(2, 2, 3, dtype=torch.float64), ar(2, 3, 2, dtype=torch.float64)))
    t("bmm int64", lambda: torch.bmm(ar(2, 2, 3, dtype=torch.int64), ar(2, 3, 2, dtype=torch.int64)))
    t("3d@2d", lambda: a3 @ ar(4, 2))
    t("2d@3d", lambda: ar(2, 3) @ ar(2, 3, 2))
    t("3d@1d", lambda: a3 @ ar(4))
    t("1d@3d", lambda: ar(4) @ b3)
    t("broadcast 4d@3d", lambda: ar(2, 1, 2, 3) @ ar(3, 3, 2))
    t("broadcast 3d@4d", lambda: ar(3, 2, 3) @ ar(2, 1, 3, 2))
    t("transposed", lambda: a3.transpose(1, 2) @ ar(2, 3, 2))
    t("expanded", lambda: ar(1, 2, 3).expand(3, 2, 3) @ ar(3, 3, 1))
    t("empty batch", lambda: ar(0, 2, 3) @ ar(0, 3, 2))
    t("empty k", lambda: ar(2, 3, 0) @ ar(2, 0, 2))
    t("empty rows 1d", lambda: ar(0, 3, 4) @ ar(4))
    t("k mismatch", lambda: a3 @ ar(2, 5, 5))
    t("batch mismatch", lambda: a3 @ ar(3, 4, 5))
    t("4d/3d k mismatch", lambda: ar(2, 1, 3, 4) @ ar(3, 5, 6))
    t("3d@2d mismatch", lambda: a3 @ ar(5, 6))
    t("2d@3d mismatch", lambda: ar(3, 4) @ ar(2, 5, 6))
    t("3d@1d mismatch", lambda: a3 @ ar(5))
    t("1d@3d mismatch", lambda: ar(4) @ ar(2, 5, 5))
    t("dtype 3d@3d", lambda: a3 @ ar(2, 4, 5, dtype=torch.float64))
    t("dtype 3d@2d", lambda: a3 @ ar(4, 6, dtype=torch.float64))
    t("dtype 2d@3d", lambda: ar(3, 4) @ ar(2, 4, 6, dtype=torch.float64))
    t("dtype 1d@3d", lambda: ar(4) @ ar(2, 4, 3, dtype=torch.float64))
    t("bmm k mismatch", lambda: torch.bmm(a3, ar(2, 5, 5)))
    t("bmm batch mismatch", lambda: torch.bmm(a3, ar(3, 4, 5)))
    t("bmm no broadcast", lambda: torch.bmm(ar(1, 3, 4), b3))
    t("bmm 2d self", lambda: torch.bmm(ar(3, 4), b3))
    t("bmm 2d mat2", lambda: torch.bmm(a3, ar(4, 5)))
    t("bmm dtype", lambda: torch.bmm(a3, ar(2, 4, 5, dtype=torch.float64)))
