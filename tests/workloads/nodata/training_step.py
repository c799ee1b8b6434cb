# A small training step that reads no values: the --no-data run must
# record the same allocator records and timeline as the normal run
# (tests/test-nodata.c). RNG, autograd, an optimizer, streams and events,
# NVTX, a pinned copy, caching-allocator reuse and empty_cache.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
side = torch.cuda.Stream()
host = torch.empty(32, 64).pin_memory()
for step in range(3):
    torch.cuda.nvtx.range_push("step %d" % step)
    x = host.to("cuda", non_blocking=True)
    y = torch.arange(32, device="cuda") % 10
    x = x + torch.randn_like(x) * 0.1
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.cuda.stream(side):
        side.wait_stream(torch.cuda.current_stream())
        stats = torch.stack([p.detach().abs().sum() for p in model.parameters()])
    done = torch.cuda.Event()
    done.record(side)
    torch.cuda.current_stream().wait_event(done)
    idx = torch.arange(16, device="cuda")
    picked = stats.index_select(0, idx % 4)
    torch.cuda.nvtx.range_pop()
del x, picked, stats
torch.cuda.empty_cache()
print(loss.shape, loss.dtype, torch.cuda.memory_allocated(), torch.cuda.max_memory_reserved())
print(torch.cuda.memory_stats()["num_alloc_retries"])
