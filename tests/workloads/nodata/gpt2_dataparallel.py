# A GPT-2-small training step on 8 simulated H100s under nn.DataParallel
# (run with --gpus 8 --no-data): 12 layers of width 768, 12 heads,
# sequences of 1024 tokens, 8 a GPU (64 in all), bf16 autocast, AdamW.
# DataParallel replicates the model from cuda:0 at every forward,
# scatters the batch, gathers the logits back on cuda:0 and computes the
# loss there, so cuda:0 holds the weights, gradients, optimizer states and
# the gathered logits while the others hold one replica's activations:
# the per-device peaks show it. docs/no-data.md explains the figures.
import os
import sys

import torch
import torch.nn as nn

if not torch._C._no_data():
    sys.exit("run this with tensorscope-cli run --no-data --gpus 8")


# The model is the gallery's "Will it fit?" GPT-2 (data/examples/will_it_fit.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "data", "examples"))
from will_it_fit import GPT, train_step  # noqa: E402


GiB = 2 ** 30
n_gpus = torch.cuda.device_count()
model = GPT().cuda()
print("%d GPUs, %d parameters" % (n_gpus, sum(p.numel() for p in model.parameters())))
dp = nn.DataParallel(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
idx = torch.randint(0, 50257, (8 * n_gpus, 1024), device="cuda")
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for step in range(2):
    for d in range(n_gpus):
        torch.cuda.reset_peak_memory_stats(d)
    torch.cuda.nvtx.range_push("step %d" % step)
    start.record()
    train_step(dp, opt, idx)
    end.record()
    torch.cuda.nvtx.range_pop()
    for d in range(n_gpus):
        torch.cuda.synchronize(d)
    print("step %d: %.1f ms" % (step, start.elapsed_time(end)))
    for d in range(n_gpus):
        print("  cuda:%d peak %.2f GiB allocated, %.2f GiB reserved"
              % (d, torch.cuda.max_memory_allocated(d) / GiB, torch.cuda.max_memory_reserved(d) / GiB))
