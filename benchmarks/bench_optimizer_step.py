# An Adam step over a 100-parameter model on a simulated GPU: the loop
# (foreach=False), the multi-tensor path (foreach=True) and fused=True.
# Run by bench-optimizer-step under tensorscope-cli; prints per path the
# simulated host time of a step (the launches' CPU cost in the cost model),
# the simulated time until the device is done, the kernels, and the wall
# time Tensorscope itself takes per step.
import time

import torch

STEPS = 20


def model():
    torch.manual_seed(0)
    layers = [torch.nn.Linear(64, 64) for _ in range(50)]   # 100 parameters
    return torch.nn.Sequential(*layers).cuda()


import sys
PATHS = [("loop", dict(foreach=False)), ("foreach", dict(foreach=True)), ("fused", dict(fused=True))]
for name, kw in [p for p in PATHS if len(sys.argv) < 2 or p[0] in sys.argv[1:]]:
    m = model()
    opt = torch.optim.Adam(m.parameters(), lr=1e-3, **kw)
    for p in m.parameters():
        p.grad = torch.ones_like(p)
    opt.step()                      # the state
    torch.cuda.synchronize()
    host = device = kernels = 0
    wall = time.perf_counter_ns()
    for _ in range(STEPS):
        h0, k0 = torch._C._trace_host_time(), torch._C._trace_count("kernel")
        opt.step()
        h1 = torch._C._trace_host_time()
        torch.cuda.synchronize()
        host += h1 - h0
        device += torch._C._trace_host_time() - h0
        kernels += torch._C._trace_count("kernel") - k0
    wall = time.perf_counter_ns() - wall
    print("%-8s kernels/step %4d  simulated host %8.1f us/step  until done %8.1f us/step  wall %8.1f us/step"
          % (name, kernels // STEPS, host / STEPS / 1e3, device / STEPS / 1e3, wall / STEPS / 1e3))
