# Time per op of a Python loop of small tensor additions. Run by
# bench-python-ops: under tensorscope-cli on CUDA tensors, and under
# /usr/bin/python3 with Debian's python3-torch on CPU tensors.
import sys
import time

import torch

N = 100_000
device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
a = torch.ones(16, device=device)
b = torch.ones(16, device=device)
for _ in range(1000):       # warm up
    c = a + b
start = time.perf_counter_ns()
for _ in range(N):
    c = a + b
elapsed = time.perf_counter_ns() - start
print("ns_per_op", elapsed / N)
