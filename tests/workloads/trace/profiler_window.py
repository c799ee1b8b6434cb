# Read back by test-workload-trace, which streams the trace to a file (-o):
# a profiler window longer than the 1024 records of each kind a streaming
# run keeps must still count every op of its own, and then the run goes
# back to streaming (its memory flat).
import torch

a = torch.randn(16, 16, device="cuda")
for _ in range(3000):            # before the window: not the profiler's
    a = a * 1.0
with torch.profiler.profile() as p:
    for _ in range(3000):
        a = a + 1
counts = {e.key: e.count for e in p.key_averages()}
assert counts.get("aten::add") == 3000, counts
assert "aten::mul" not in counts, counts
kernels = sum(len(e.kernels) for e in p.events() if e.name == "aten::add")
assert kernels == 3000, kernels
for _ in range(3000):            # after it: streamed again
    a = a - 1
