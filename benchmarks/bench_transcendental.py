# Time per call of float32 transcendental ops (SLEEF in PyTorch's AVX2
# kernels and in ours, src/kernels/cpu/ts-cpu-sleef.c) at 16x16 and
# 1024x1024, with a + b at 16x16 for scale. Run by bench-python-ops under
# tensorscope-cli on DEVICE (argv[1]) and under /usr/bin/python3 on the
# CPU. Prints "op NAME NS_PER_CALL" lines.
import sys
import time

import torch
import torch.nn.functional as F

device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
torch.manual_seed(0)
ops = []
for n, calls in ((16, 1000), (1024, 20)):
    a = torch.randn(n, n).to(device)
    b = torch.randn(n, n).to(device)
    if n == 16:
        ops.append(("add_16", calls, lambda a=a, b=b: a + b))
    ops += [("exp_%d" % n, calls, lambda a=a: a.exp()),
            ("softmax_%d" % n, calls, lambda a=a: a.softmax(-1)),
            ("sigmoid_%d" % n, calls, lambda a=a: torch.sigmoid(a)),
            ("tanh_%d" % n, calls, lambda a=a: a.tanh()),
            ("log_softmax_%d" % n, calls, lambda a=a: F.log_softmax(a, -1))]

for name, calls, f in ops:
    for _ in range(max(calls // 20, 3)):      # warm up
        f()
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter_ns()
    for _ in range(calls):
        f()
    if device == "cuda":
        torch.cuda.synchronize()
    print("op", name, (time.perf_counter_ns() - start) / calls)
