# Time per op of a Python loop of small CUDA ops, run by bench-sanitizer-ops
# under tensorscope-cli with and without --sanitize. Each iteration reads a
# and b and writes a fresh c (the previous c is freed), as a training loop's
# small elementwise ops do; a is also written in place now and then.
import time

import torch

N = 20_000
a = torch.ones(16, device="cuda")
b = torch.ones(16, device="cuda")
for _ in range(500):        # warm up
    c = a + b
start = time.perf_counter_ns()
for i in range(N):
    c = a + b
    if i % 100 == 0:
        a.mul_(1.0)
elapsed = time.perf_counter_ns() - start
print("ns_per_op", elapsed / (N + N // 100))
