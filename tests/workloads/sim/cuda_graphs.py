# CUDA graphs: capture rules with CUDA's and PyTorch's errors, replay
# results equal to eager ones, the private pool, make_graphed_callables.
import torch


def expect_error(what, f):
    try:
        f()
    except Exception as e:
        print(what, type(e).__name__, str(e).splitlines()[0])
    else:
        print(what, "no error")


x = torch.arange(8, device="cuda", dtype=torch.float32)
print("capturing outside", torch.cuda.is_current_stream_capturing())

# the legacy default stream cannot capture
expect_error("default stream", lambda: torch.cuda.CUDAGraph().capture_begin())

# replay equals eager, with the outputs in the same static tensors
static_x = torch.zeros(8, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    print("capturing inside", torch.cuda.is_current_stream_capturing())
    static_y = (static_x * 2 + 1).relu()
    static_z = static_y.sum()
ptr = static_y.data_ptr()
for v in (1.0, -3.0, 5.0):
    static_x.copy_(x + v)
    g.replay()
    eager = (x + v) * 2 + 1
    print("replay", v, torch.equal(static_y, eager.relu()), static_z.item() == eager.relu().sum().item(),
          static_y.data_ptr() == ptr)
expect_error("replay before capture", lambda: torch.cuda.CUDAGraph().replay())
expect_error("pool before capture", lambda: torch.cuda.CUDAGraph().pool())
expect_error("capture twice", lambda: g.capture_begin())
print("pool", g.pool()[1] == 0 and g.pool()[0] > 0)

# synchronizing, querying or .item() during a capture is refused
s = torch.cuda.Stream()
for what, f in (("synchronize", torch.cuda.synchronize),
                ("stream query", lambda: s.query()),
                ("stream synchronize", lambda: s.synchronize()),
                ("item", lambda: static_x.sum().item())):
    g2 = torch.cuda.CUDAGraph()
    with torch.cuda.stream(s):
        g2.capture_begin()
        expect_error(what, f)
        expect_error(what + " capture_end", g2.capture_end)
print("capturing after", torch.cuda.is_current_stream_capturing())

# another stream joins the capture through an event and rejoins it
a = torch.zeros(4, device="cuda")
g3 = torch.cuda.CUDAGraph()
side = torch.cuda.Stream()
with torch.cuda.graph(g3):
    b = a + 1
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c = b * 3
    torch.cuda.current_stream().wait_stream(side)
    d = c + b
a.fill_(2.0)
g3.replay()
g6 = torch.cuda.CUDAGraph()


def unjoined():
    with torch.cuda.graph(g6):
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            a * 3


expect_error("unjoined", unjoined)
torch.cuda.synchronize()
print("joined", d.tolist())

# memory allocated during capture comes from the graph's private pool
big_in = torch.ones(1 << 20, device="cuda")
torch.cuda.synchronize()
before = torch.cuda.memory_reserved()
g4 = torch.cuda.CUDAGraph()
with torch.cuda.graph(g4):
    big_out = big_in * 2
print("pool reserved", torch.cuda.memory_reserved() - before)
del big_out
g4.reset()
print("reset keeps the segments until empty_cache", torch.cuda.memory_reserved() - before)
torch.cuda.empty_cache()
print("after reset", torch.cuda.memory_reserved() - before)

# make_graphed_callables: a function and a module, forward only
f = torch.cuda.make_graphed_callables(lambda t: t * t + 1, (torch.zeros(4, device="cuda"),))
print("graphed function", f(torch.full((4,), 3.0, device="cuda")).tolist())
lin = torch.nn.Linear(4, 2).cuda()
for p in lin.parameters():
    p.requires_grad_(False)
inp = torch.ones(3, 4, device="cuda")
want = lin(inp)
glin = torch.cuda.make_graphed_callables(lin, (torch.zeros(3, 4, device="cuda"),))
print("graphed module", (glin(inp) - want).abs().max().item() < 1e-6)
# make_graphed_callables with a backward: the forward and the backward are
# two graphs (two cudaGraphLaunch per step), and the gradients after replay
# are the eager ones; the printed values are PyTorch 1.13's on the CPU for
# the same weights and inputs.
def make_mlp():
    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.1 - 0.2 * i)
    return m.cuda()
def step(model, x):
    for p in model.parameters():
        p.grad = None
    x = x.clone().requires_grad_(True)
    o = model(x)
    (o * o).sum().backward()
    return o, x.grad, model[0].weight.grad
gmlp = torch.cuda.make_graphed_callables(make_mlp(), (torch.zeros(5, 4, device="cuda", requires_grad=True),))
emlp = make_mlp()
x1 = torch.arange(20, dtype=torch.float32, device="cuda").reshape(5, 4) * 0.25 - 1.0
o, xg, wg = step(gmlp, x1)
print("graphed backward out", [round(v, 6) for v in o.flatten().tolist()])
print("graphed backward x.grad", [round(v, 6) for v in xg.flatten().tolist()])
print("graphed backward w0.grad", [round(v, 6) for v in wg.flatten().tolist()])
for x in (x1, x1 * -2 + 0.5):
    got = step(gmlp, x)
    want = step(emlp, x)
    print("graphed backward equals eager", all(torch.equal(a, b) for a, b in zip(got, want)))
gfn = torch.cuda.make_graphed_callables(lambda t: t * t, (torch.zeros(3, device="cuda", requires_grad=True),))
t = torch.tensor([1.0, -2.0, 3.0], device="cuda", requires_grad=True)
gfn(t).sum().backward()
print("graphed function grad", t.grad.tolist())

# PyTorch's test_graph_two_successive: sharing a pool saves one 2 MiB small segment
def two_successive(share):
    torch.cuda.synchronize(); torch.cuda.empty_cache()
    before = torch.cuda.memory_reserved()
    a = torch.ones(1000, device="cuda")
    g0 = torch.cuda.CUDAGraph(); g1 = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        g0.capture_begin()
        b = a * 2
        g0.capture_end()
        g1.capture_begin(*((g0.pool(),) if share else ()))
        c = b + 1
        g1.capture_end()
    r = torch.cuda.memory_reserved() - before
    del a, b, c, g0, g1
    torch.cuda.synchronize(); torch.cuda.empty_cache()
    return r
unshared = two_successive(False)
shared = two_successive(True)
print("two successive", unshared - shared)
# an allocation on a stream outside the capture stays in the ordinary pools
other = torch.cuda.Stream()
torch.cuda.synchronize(); torch.cuda.empty_cache()
g = torch.cuda.CUDAGraph()
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    g.capture_begin()
    with torch.cuda.stream(other):
        outside = torch.ones(10, device="cuda")
    inside = torch.zeros(10, device="cuda")
    g.capture_end()
snap = torch.cuda.memory_snapshot()
pools = {}
for seg in snap:
    for blk in seg["blocks"]:
        if blk["state"] == "active_allocated":
            pools[blk["address"]] = seg["segment_pool_id"]
print("outside pool", pools[outside.data_ptr()], "inside pool is the graph's",
      pools[inside.data_ptr()] == g.pool())

# RNG during capture: each replay draws new numbers, and the eager
# generator moves on by the graph's offsets, as the graph-safe generator
torch.cuda.manual_seed(7)
g5 = torch.cuda.CUDAGraph()
with torch.cuda.graph(g5):
    noise = torch.rand(4, device="cuda")
g5.replay()
first = noise.tolist()
g5.replay()
second = noise.tolist()
after = torch.rand(4, device="cuda").tolist()
torch.cuda.manual_seed(7)
eager = [torch.rand(4, device="cuda").tolist() for _ in range(3)]
print("rng replays", first == eager[0], second == eager[1], after == eager[2])
print("OK")
