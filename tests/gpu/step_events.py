# tests/gpu/step_events.py [sgd|adam|conv]: CUDA-event time per training step of the
# benchmarks' MLP (64-128-128-10, batch 32) or conv net, so that real PyTorch on a GPU and
# the simulator (`tensorscope-cli run --gpu-model h200`) can be set side by side: the
# simulator's events read virtual time, its prediction. Prints the kernels per step too.
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F

kind = sys.argv[1] if len(sys.argv) > 1 else "sgd"
torch.manual_seed(0)
if kind == "conv":
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1)).cuda()
    x = torch.randn(16, 3, 32, 32, device="cuda")

    def step():
        model.zero_grad(set_to_none=True)
        model(x).relu().sum().backward()
else:
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                          nn.Linear(128, 10)).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3) if kind == "adam" else \
        torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(32, 64, device="cuda")
    y = torch.randint(0, 10, (32,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        opt.step()

for _ in range(10):
    step()
torch.cuda.synchronize()
steps = 100
a = torch.cuda.Event(enable_timing=True)
b = torch.cuda.Event(enable_timing=True)
a.record()
for _ in range(steps):
    step()
b.record()
b.synchronize()
print(f"{kind} {a.elapsed_time(b) / steps * 1000:.1f} us per step (CUDA events)")
