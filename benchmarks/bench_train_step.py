# Time per training step of the launch-bound MLP of issues #15 and #16:
# 64-128-128-10, batch 32, cross-entropy, SGD with momentum (or Adam with
# argv[2] == "adam"). Run by bench-python-ops under tensorscope-cli on
# simulated CUDA tensors and under /usr/bin/python3 with Debian's
# python3-torch on CPU tensors; argv[1] names the device.
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 200
device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
adam = len(sys.argv) > 2 and sys.argv[2] == "adam"
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-3) if adam else \
    torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(32, 64).to(device)
y = torch.randint(0, 10, (32,)).to(device)


def step():
    opt.zero_grad(set_to_none=True)
    F.cross_entropy(model(x), y).backward()
    opt.step()


for _ in range(10):         # warm up
    step()
start = time.perf_counter_ns()
for _ in range(STEPS):
    step()
print("us_per_step", (time.perf_counter_ns() - start) / STEPS / 1000)
