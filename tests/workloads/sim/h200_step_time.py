# Launch-bound training steps on the measured H200 profile: besides each kernel's
# dispatch and launch, the host time of PyTorch's Python between ops (a module call,
# backward()'s entry, each autograd node, the optimizer per group and per parameter,
# zero_grad), read off a real Kineto trace by tests/gpu/host-time-breakdown.py. The
# steps are tests/gpu/step_events.py's; on a real H200 with PyTorch 2.11 they took
# 980 us (SGD), 1138 us (Adam) and 531 us (conv net) per step (docs/gpu-measurements.md).
import torch
import torch.nn as nn
import torch.nn.functional as F

REAL = {"sgd": 980, "adam": 1138, "conv": 531}


def timed(fn, n):
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(n):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1000 / n


def make(kind):
    torch.manual_seed(0)
    if kind == "conv":
        model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                              nn.Conv2d(16, 32, 3, padding=1)).cuda()
        x = torch.randn(16, 3, 32, 32, device="cuda")

        def step():
            model.zero_grad(set_to_none=True)
            model(x).relu().sum().backward()
        return step
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
    return step


for kind in ("sgd", "adam", "conv"):
    step = make(kind)
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    us = timed(step, 10)
    print(f"{kind}: {us:.1f} us per step predicted, {REAL[kind]} us real, "
          f"{100 * (us / REAL[kind] - 1):+.0f}%")

# One construct alone, with no kernel in it: the time between two event records
# is the module call's host cost and the second record's API latency.
ident = nn.Identity()
x = torch.zeros(1, device="cuda")
torch.cuda.synchronize()
print(f"nn.Identity call: {timed(lambda: ident(x), 1) * 1000:.0f} ns between events")
