# Launch-bound training steps on the measured H200 profile: besides each kernel's
# dispatch and launch, the host time of PyTorch's Python between ops (a module call,
# backward()'s entry, each autograd node, the optimizer per group and per parameter,
# zero_grad), read off a real Kineto trace by tests/gpu/host-time-breakdown.py. The
# steps are tests/gpu/step_events.py's; on a real H200 with PyTorch 2.11 they took
# 980 us (SGD), 1138 us (Adam) and 531 us (conv net) per step (docs/gpu-measurements.md).
import os
import runpy
import sys

import torch
import torch.nn as nn

REAL = {"sgd": 980, "adam": 1138, "conv": 531}
STEP_EVENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "gpu", "step_events.py")


# The very script that ran on the real H200, once per kind.
for kind in ("sgd", "adam", "conv"):
    sys.argv = [STEP_EVENTS, kind]
    g = runpy.run_path(STEP_EVENTS)
    us = g["a"].elapsed_time(g["b"]) * 1000 / g["steps"]
    print(f"  real H200 {REAL[kind]} us, predicted {100 * (us / REAL[kind] - 1):+.0f}%")

# One construct alone, with no kernel in it: the time between two event records
# is the module call's host cost and the second record's API latency.
ident = nn.Identity()
x = torch.zeros(1, device="cuda")
events = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
torch.cuda.synchronize()
events[0].record()
ident(x)
events[1].record()
events[1].synchronize()
print(f"nn.Identity call: {events[0].elapsed_time(events[1]) * 1e6:.0f} ns between events")
