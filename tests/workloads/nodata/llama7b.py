# Will a Llama-7B-shaped training step fit on one 80 GB H100?
#
# 32 layers of width 4096, 32 heads, a SwiGLU MLP of 11008, RMSNorm written
# as users write it, rotary embeddings, a 32000-token vocabulary, one
# sequence of 2048 tokens, bf16 autocast, AdamW. Run with --no-data: the
# caching allocator sees the same allocations a real run makes, nothing is
# computed. float32 weights with float32 AdamW states (16 bytes a
# parameter, 108 GB) cannot fit; the script prints PyTorch's out-of-memory
# message and memory_summary(), then the variants PyTorch runs natively.
# docs/no-data.md explains the figures.
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

if not torch._C._no_data():
    sys.exit("run this with tensorscope-cli run --no-data: it models 80 GB of GPU memory")


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Block(nn.Module):
    def __init__(self, d, heads, hidden):
        super().__init__()
        self.heads = heads
        self.attn_norm = RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.mlp_norm = RMSNorm(d)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x, cos, sin):
        B, T, C = x.shape
        h = self.attn_norm(x)
        q, k, v = (w(h).view(B, T, self.heads, C // self.heads).transpose(1, 2)
                   for w in (self.wq, self.wk, self.wv))
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(y.transpose(1, 2).reshape(B, T, C))
        h = self.mlp_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    def __init__(self, vocab=32000, d=4096, layers=32, heads=32, hidden=11008, seq=2048, ckpt=False):
        super().__init__()
        self.ckpt = ckpt
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads, hidden) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        half = d // heads // 2
        freqs = 1.0 / (10000 ** (torch.arange(half).float() / half))
        angles = torch.outer(torch.arange(seq).float(), freqs)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, idx):
        x = self.embed(idx)
        for b in self.blocks:
            if self.ckpt:
                x = checkpoint(b, x, self.cos, self.sin, use_reentrant=False)
            else:
                x = b(x, self.cos, self.sin)
        return self.head(self.norm(x))


GiB = 2 ** 30
idx = torch.randint(0, 32000, (1, 2048), device="cuda")
# None of float32 fits: 16 bytes a parameter (weights, gradients and
# AdamW's two states in float32) is 100.4 GiB before any activation. In
# bfloat16 the same four make 50.2 GiB; what decides then is the step's
# peak: the activations of forward and backward, and the temporaries of
# the optimizer step (foreach AdamW's sqrt and denominator lists are two
# more copies of the states, 25.1 GiB; the fused kernel and the for-loop
# make none).
variants = [
    # name, parameter dtype, checkpointing, sequence, AdamW options
    ("fp32 weights", torch.float32, False, 2048, {}),
    ("bf16 weights", torch.bfloat16, False, 2048, {}),
    ("bf16 weights, checkpointing", torch.bfloat16, True, 2048, {}),
    ("bf16 weights, fused AdamW", torch.bfloat16, False, 2048, {"fused": True}),
    ("bf16 weights, fused AdamW, seq 4096", torch.bfloat16, False, 4096, {"fused": True}),
    ("bf16 weights, fused AdamW, seq 4096, checkpointing", torch.bfloat16, True, 4096, {"fused": True}),
]
idx = torch.randint(0, 32000, (1, 4096), device="cuda")
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for name, dtype, ckpt, seq, options in variants:
    torch.cuda.nvtx.range_push(name)
    model = Llama(ckpt=ckpt, seq=seq).to("cuda", dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, **options)
    n = sum(p.numel() for p in model.parameters())
    print("%s: %d parameters, %.2f GiB" % (name, n, torch.cuda.memory_allocated() / GiB))
    try:
        torch.cuda.reset_peak_memory_stats()
        start.record()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(idx[:, :seq])
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), idx[0, :seq])
        loss.backward()
        logits = loss = None
        print("  forward and backward: peak %.2f GiB allocated" % (torch.cuda.max_memory_allocated() / GiB))
        torch.cuda.reset_peak_memory_stats()
        opt.step()
        opt.zero_grad(set_to_none=True)
        end.record()
        end.synchronize()
        print("  optimizer step: peak %.2f GiB allocated, %.2f GiB reserved"
              % (torch.cuda.max_memory_allocated() / GiB, torch.cuda.max_memory_reserved() / GiB))
        print("  fits: step time %.1f ms" % start.elapsed_time(end))
    except torch.cuda.OutOfMemoryError as e:
        print("  does not fit:")
        print(e)
        print(torch.cuda.memory_summary())
    finally:
        torch.cuda.nvtx.range_pop()
        logits = loss = None
        del model, opt
        torch.cuda.empty_cache()
