# A loop of one small op, for counting instructions per op under callgrind
# (build-aux/per-op-instructions.sh): N iterations of OP, or of nothing
# with OP "none", whose count is subtracted. Run under tensorscope-cli on
# CUDA tensors, or under /usr/bin/python3 (Debian's python3-torch) on CPU.
import sys

import torch

N = int(sys.argv[1])
OP = sys.argv[2]
device = sys.argv[3] if len(sys.argv) > 3 else "cuda"
a = torch.ones(16, device=device)
b = torch.ones(16, device=device)
A = torch.ones(16, 16, device=device)
B = torch.ones(16, 16, device=device)
ga = torch.ones(16, device=device, requires_grad=True)
gb = torch.ones(16, device=device, requires_grad=True)
OPS = {
    "none": lambda: None,
    "add": lambda: a + b,
    "add_16x16": lambda: A + B,
    "mul_grad": lambda: ga * gb,
    "relu": lambda: a.relu(),
    "relu_16x16": lambda: A.relu(),
    "matmul_16x16": lambda: A @ B,
    "sum": lambda: a.sum(),
}
f = OPS[OP]
f()     # first-call setup (cuBLAS workspace, caches) outside the difference
for _ in range(N):
    c = f()
