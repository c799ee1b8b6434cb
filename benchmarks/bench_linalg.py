# Time per call of torch.linalg ops on CPU tensors (float64): a 128x128
# matrix, and a batch of 256 8x8 ones (where the per-matrix glue counts).
# Run by bench-python-ops under tensorscope-cli and under /usr/bin/python3
# with Debian's python3-torch; both sides call LAPACK, so the ratio is our
# layout copies and dispatch against PyTorch's. Prints "op NAME NS" lines.
import time

import torch

torch.manual_seed(0)


def spd(*shape):
    x = torch.randn(*shape, dtype=torch.float64)
    return x @ x.transpose(-2, -1) + shape[-1] * torch.eye(shape[-1], dtype=torch.float64)


A = spd(128, 128)
B = torch.randn(128, 16, dtype=torch.float64)
Ab = spd(256, 8, 8)
Bb = torch.randn(256, 8, 2, dtype=torch.float64)

OPS = [
    ("inv_128", 20, lambda: torch.linalg.inv(A)),
    ("solve_128", 20, lambda: torch.linalg.solve(A, B)),
    ("cholesky_128", 20, lambda: torch.linalg.cholesky(A)),
    ("det_128", 20, lambda: torch.linalg.det(A)),
    ("qr_128", 20, lambda: torch.linalg.qr(A)),
    ("eigh_128", 10, lambda: torch.linalg.eigh(A)),
    ("svd_128", 10, lambda: torch.linalg.svd(A)),
    ("inv_256x8", 50, lambda: torch.linalg.inv(Ab)),
    ("solve_256x8", 50, lambda: torch.linalg.solve(Ab, Bb)),
    ("cholesky_256x8", 50, lambda: torch.linalg.cholesky(Ab)),
    ("eigh_256x8", 20, lambda: torch.linalg.eigh(Ab)),
    ("svd_256x8", 20, lambda: torch.linalg.svd(Ab)),
]
for name, n, f in OPS:
    for _ in range(3):
        f()
    start = time.perf_counter_ns()
    for _ in range(n):
        f()
    print("op", name, (time.perf_counter_ns() - start) / n)
