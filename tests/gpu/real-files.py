# tests/gpu/real-files.py OUTDIR: files real PyTorch writes on a GPU, for Tensorscope's
# importers' tests (tests/data/real/): memory snapshots (plain, expandable segments, a
# CUDA graph's private pool) and a Kineto trace with memory events. Real PyTorch only.
import os, sys, torch
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)


def mlp_step(model, opt, x, y):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss


def make():
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10)).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(32, 64, device="cuda")
    y = torch.randint(0, 10, (32,), device="cuda")
    return model, opt, x, y


kind = os.environ.get("REAL_FILES_KIND", "plain")
torch.cuda.memory._record_memory_history(max_entries=100000)
model, opt, x, y = make()
for _ in range(3):
    mlp_step(model, opt, x, y)
if kind == "graph":
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            mlp_step(model, opt, x, y)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_out = model(x)
    g.replay()
    big = torch.empty(50 * 2**20, device="cuda")       # a large segment beside the pool
    del big
torch.cuda.synchronize()
torch.cuda.memory._dump_snapshot(os.path.join(out, f"snapshot_{kind}.pickle"))
torch.cuda.memory._record_memory_history(enabled=None)
print(kind, "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())

if kind == "plain":
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True,
                 record_shapes=True, with_stack=True) as prof:
        for _ in range(2):
            mlp_step(model, opt, x, y)
        torch.cuda.synchronize()
    prof.export_chrome_trace(os.path.join(out, "kineto_mlp.json"))
    print("kineto written")
