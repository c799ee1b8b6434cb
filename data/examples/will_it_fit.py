# Will it fit? A GPT-2-small training step in 16 GiB of GPU memory.
#
# GPT-2 small (124 M parameters, 12 layers, width 768, 12 heads), a batch
# of 8 sequences of 1024 tokens, AdamW: three ways to train it on a GPU
# capped at 16 GiB (set_per_process_memory_fraction). Plain float32 does
# not fit; bf16 autocast shrinks the activations, though only a little:
# the attention's softmax, the biggest of them, stays float32 under
# autocast; checkpointing each block keeps only the blocks' inputs and
# recomputes the rest in backward. The
# gallery runs it with --no-data: the allocator's numbers are exactly
# those of a real run, no values are computed, so a laptop can answer.
# Look at the Memory page: the NVTX ranges name the variants, the OOM is
# marked with its message, and the peaks differ by the activations.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


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
    def __init__(self, vocab=50257, d=768, layers=12, heads=12, seq=1024, ckpt=False):
        super().__init__()
        self.ckpt = ckpt
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.wte.weight

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=False) if self.ckpt else b(x)
        return self.head(self.ln_f(x))


def train_step(model, opt, idx, amp=True):
    """Forward and loss (under bf16 autocast when amp), backward, optimizer."""
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
        logits = model(idx)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), idx.view(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


# The experiment runs as a script; the model is also imported by the
# benchmarks and test workloads of the same GPT-2 (bench_gpt2_step.py).
if __name__ == "__main__":
    GiB = 2 ** 30
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(16.0 * GiB / total)
    idx = torch.randint(0, 50257, (8, 1024), device="cuda")

    for name, amp, ckpt in [("fp32", False, False), ("bf16 autocast", True, False),
                            ("bf16 autocast + checkpointing", True, True)]:
        torch.cuda.reset_peak_memory_stats()
        torch.cuda.nvtx.range_push(name)
        model = GPT(ckpt=ckpt).cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
        try:
            train_step(model, opt, idx, amp)
            print("%-30s fits: peak %.1f GiB allocated" % (name, torch.cuda.max_memory_allocated() / GiB))
        except torch.cuda.OutOfMemoryError as e:
            print("%-30s does not fit: %s." % (name, ". ".join(str(e).split(". ")[:2])))
        finally:
            torch.cuda.nvtx.range_pop()
            del model, opt
            torch.cuda.empty_cache()
