# A GPT-2-small training step on one simulated H100 under
# tensorscope-cli run --no-data (bench-gpt2-step runs it): 12 layers of
# width 768, 12 heads, batch 8 of 1024 tokens, bf16 autocast, AdamW. Prints
# the median wall time of a step (host work, simulator, recorder and trace
# writer together: the writer streams the trace as records come), the
# step's virtual time, and the process's peak RSS.
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab=50257, d=768, layers=12, heads=12, seq=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.wte.weight

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
model = GPT().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
idx = torch.randint(0, 50257, (8, 1024), device="cuda")
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
times = []
for _ in range(steps):
    wall = time.perf_counter()
    start.record()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(idx)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), idx.view(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    end.record()
    del logits, loss
    torch.cuda.synchronize()
    times.append(time.perf_counter() - wall)
times.sort()
print("step_ms %.3f" % (times[len(times) // 2] * 1e3))
print("virtual_step_ms %.3f" % start.elapsed_time(end))
print("max_memory_allocated", torch.cuda.max_memory_allocated())
print("peak_rss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
