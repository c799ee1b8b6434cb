# Time per call of common small tensor ops from Python (16x16 float32),
# each in its own loop. Run by bench-python-ops: under tensorscope-cli on
# CUDA tensors, and under /usr/bin/python3 with Debian's python3-torch on
# CPU tensors. Prints "op NAME NS_PER_CALL" lines.
import sys
import time

import torch

N = 1000
device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
torch.manual_seed(0)
a = torch.randn(16, 16).to(device)
b = torch.randn(16, 16).to(device)
m = a > 0
idx = torch.tensor([0, 3, 5, 7]).to(device)
gidx = torch.zeros(16, 4, dtype=torch.int64).to(device)

OPS = [
    ("add", lambda: a + b),
    ("mul", lambda: a * b),
    ("div", lambda: a / b),
    ("exp", lambda: a.exp()),
    ("relu", lambda: a.relu()),
    ("sum", lambda: a.sum()),
    ("mean_dim", lambda: a.mean(1)),
    ("max_dim", lambda: a.max(1)),
    ("argmax", lambda: a.argmax(1)),
    ("matmul", lambda: a @ b),
    ("softmax", lambda: a.softmax(-1)),
    ("clamp", lambda: a.clamp(-0.5, 0.5)),
    ("where", lambda: torch.where(m, a, b)),
    ("masked_fill", lambda: a.masked_fill(m, 0.0)),
    ("cat", lambda: torch.cat([a, b])),
    ("transpose_contig", lambda: a.t().contiguous()),
    ("index_select", lambda: a.index_select(0, idx)),
    ("gather", lambda: a.gather(1, gidx)),
    ("sort", lambda: a.sort(1)),
    ("cumsum", lambda: a.cumsum(1)),
    ("lerp", lambda: torch.lerp(a, b, 0.3)),
    ("addcmul", lambda: torch.addcmul(a, a, b, value=0.5)),
    ("var", lambda: a.var(1)),
    ("norm", lambda: a.norm()),
    ("einsum", lambda: torch.einsum("ij,jk->ik", a, b)),
]

for name, f in OPS:
    for _ in range(50):         # warm up
        f()
    start = time.perf_counter_ns()
    for _ in range(N):
        f()
    print("op", name, (time.perf_counter_ns() - start) / N)
