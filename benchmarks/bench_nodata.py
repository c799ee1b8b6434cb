# Workloads bigger than this machine, under tensorscope-cli run --no-data
# (bench-nodata runs it). "mlp": a training-like step of a big MLP (width
# 8192, batch 4096, 4 layers: matmuls, ReLU, a loss, backward, SGD with
# momentum): per-step wall time. "zeros": torch.zeros(40000, 40000).sum()
# on cuda:0. "fill": torch.empty(80000, 80000, device="cuda:1").fill_(1.0).
# Each prints its wall time and the process's peak RSS; without --no-data
# the big ones raise the host-memory RuntimeError and the script says so.
import resource
import sys
import time

import torch
import torch.nn as nn


def mlp(steps):
    width, batch, layers = 8192, 4096, 4
    model = nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(width, width), nn.ReLU())]).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, width, device="cuda")
    target = torch.randn(batch, width, device="cuda")
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        loss = ((model(x) - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    times.sort()
    print("step_ms %.2f" % (times[len(times) // 2] * 1e3))
    print("steps", steps)
    print("max_memory_allocated", torch.cuda.max_memory_allocated())


def big(which):
    start = time.perf_counter()
    try:
        if which == "zeros":
            torch.zeros(40000, 40000, device="cuda").sum()
        else:
            torch.empty(80000, 80000, device="cuda:1").fill_(1.0)
        torch.cuda.synchronize()
        print("ran")
    except RuntimeError as err:
        print("RuntimeError:", str(err)[:90], "...")
    print("wall_ms %.2f" % ((time.perf_counter() - start) * 1e3))


what = sys.argv[1]
if what == "mlp":
    mlp(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
else:
    big(what)
print("peak_rss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
