# The per-op cost of recording the graph (#15): a few small ops (16x16
# float32) on tensors without and with requires_grad=True, in the same
# process, each loop repeated 7 times with the two variants interleaved
# (so drift touches both alike). Prints "grad_op NAME PLAIN_NS GRAD_NS
# RATIO" lines (medians, ns per call). Run by bench-python-ops under
# tensorscope-cli on CUDA tensors and under /usr/bin/python3 with Debian's
# python3-torch on CPU tensors.
import statistics
import sys
import time

import torch
import torch.nn.functional as F

N = 5000
REPEATS = 7
device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
torch.manual_seed(0)
base_a = torch.randn(16, 16).to(device)
base_b = torch.randn(16, 16).to(device)
bias = torch.randn(16).to(device)
target = torch.randint(0, 16, (16,)).to(device)

OPS = [
    ("add", lambda a, b: a + b),
    ("mul", lambda a, b: a * b),
    ("matmul", lambda a, b: a @ b),
    ("relu", lambda a, b: a.relu()),
    ("sum", lambda a, b: a.sum()),
    ("softmax", lambda a, b: a.softmax(-1)),
    ("linear", lambda a, b: F.linear(a, b, bias)),
    ("cross_entropy", lambda a, b: F.cross_entropy(a, target)),
]


def per_call(f, a, b):
    for _ in range(50):         # warm up
        f(a, b)
    start = time.perf_counter_ns()
    for _ in range(N):
        f(a, b)
    return (time.perf_counter_ns() - start) / N


plain = (base_a, base_b)
grad = (base_a.clone().requires_grad_(), base_b.clone().requires_grad_())
for name, f in OPS:
    times = {False: [], True: []}
    for _ in range(REPEATS):
        for with_grad, (a, b) in ((False, plain), (True, grad)):
            times[with_grad].append(per_call(f, a, b))
    p, g = statistics.median(times[False]), statistics.median(times[True])
    print("grad_op", name, round(p), round(g), round(g / p, 2))
