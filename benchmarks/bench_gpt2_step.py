# A GPT-2-small training step on one simulated H100 under
# tensorscope-cli run --no-data (bench-gpt2-step runs it): 12 layers of
# width 768, 12 heads, batch 8 of 1024 tokens, bf16 autocast, AdamW. Prints
# the median wall time of a step (host work, simulator, recorder and trace
# writer together: the writer streams the trace as records come), the
# step's virtual time, and the process's peak RSS.
import os
import resource
import sys
import time

import torch


# The model is the gallery's "Will it fit?" GPT-2 (data/examples/will_it_fit.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "examples"))
from will_it_fit import GPT, train_step  # noqa: E402


steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
model = GPT().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
idx = torch.randint(0, 50257, (8, 1024), device="cuda")
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
times = []
for _ in range(steps):
    wall = time.perf_counter()
    start.record()
    train_step(model, opt, idx)
    end.record()
    torch.cuda.synchronize()
    times.append(time.perf_counter() - wall)
times.sort()
print("step_ms %.3f" % (times[len(times) // 2] * 1e3))
print("virtual_step_ms %.3f" % start.elapsed_time(end))
print("max_memory_allocated", torch.cuda.max_memory_allocated())
print("peak_rss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
