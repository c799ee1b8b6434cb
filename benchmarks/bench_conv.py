# Time per training step of a two-layer conv net: Conv2d 3->16->32 (3x3,
# padding 1) on a batch of 16 32x32 images, forward and backward. Run by
# bench-python-ops: under tensorscope-cli and under /usr/bin/python3 with
# Debian's python3-torch (CPU eager), on the device named by argv[1].
# With "layer" as argv[2]: the convolutions alone, the second layer's
# forward and backward (input, weight and bias gradients) from a dense
# gradient, without the net's ReLU and sum.
import sys
import time

import torch
import torch.nn as nn

STEPS = 20
device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1)).to(device)
x = torch.randn(16, 3, 32, 32).to(device)


h = torch.randn(16, 16, 32, 32).to(device).requires_grad_()
g = torch.randn(16, 32, 32, 32).to(device)
layer = len(sys.argv) > 2 and sys.argv[2] == "layer"


def step():
    for p in net.parameters():
        p.grad = None
    if layer:
        h.grad = None
        net[2](h).backward(g)
    else:
        net(x).sum().backward()


for _ in range(3):          # warm up
    step()
times, cpu_times = [], []
for _ in range(STEPS):
    start, cpu_start = time.perf_counter_ns(), time.process_time_ns()
    step()
    if device == "cuda":
        torch.cuda.synchronize()
    times.append(time.perf_counter_ns() - start)
    cpu_times.append(time.process_time_ns() - cpu_start)
times.sort()
cpu_times.sort()
# wall time, and the CPU time of all the process's threads (less sensitive
# to other processes on a shared machine)
print("ms_per_step", times[STEPS // 2] / 1e6)
print("cpu_ms_per_step", cpu_times[STEPS // 2] / 1e6)
