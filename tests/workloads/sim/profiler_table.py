# torch.profiler on the simulator's trace: a record_function range around
# forward and backward, the table of key_averages (simulated times), the
# operator tree, a schedule with on_trace_ready, the legacy
# torch.autograd.profiler API and export_chrome_trace.
import json
import os
import tempfile

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).cuda()
x = torch.randn(32, 64, device="cuda")
model(x)

with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True) as prof:
    with record_function("step"):
        model(x).sum().backward()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=8))

step = next(e for e in prof.events() if e.name == "step")
print("step children", [c.name for c in step.cpu_children][:6])
mm = next(e for e in prof.events() if e.name == "aten::mm" and e.device_type == "CPU")
print("aten::mm", mm.cpu_parent.name, [c.name for c in mm.cpu_children], [k.name for k in mm.kernels],
      mm.self_cuda_memory_usage)

windows = []
with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
             on_trace_ready=lambda p: windows.append((p.step_num, len(p.events())))) as p2:
    for _ in range(5):
        model(x)
        p2.step()
print("windows", windows)

with torch.autograd.profiler.profile(use_cuda=True) as legacy:
    model(x)
print(legacy.key_averages().table(sort_by="self_cuda_time_total", row_limit=2))

with profile(activities=[ProfilerActivity.CPU]) as cpu_only:
    model(x)
print("cpu only", sorted({e.device_type for e in cpu_only.events()}))

path = os.path.join(tempfile.mkdtemp(), "trace.json")
prof.export_chrome_trace(path)
with open(path) as f:
    events = json.load(f)["traceEvents"]
print("chrome", sorted({e["cat"] for e in events}), sum(e["cat"] == "kernel" for e in events))
try:
    profile().key_averages()
except AssertionError as e:
    print("AssertionError:", e)
