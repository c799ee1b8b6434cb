# CUDA graphs: whole-network and partial capture.
#
# A small network of many short kernels is bound by the host: every kernel
# costs a launch (a few microseconds of cudaLaunchKernel) and the GPU waits
# for the next one. Captured once into a CUDA graph, the same kernels go
# out as one cudaGraphLaunch per iteration, and run back to back on the
# stream. On the timeline, compare the "eager" ranges (one cudaLaunchKernel
# per kernel on the API row) with the "graph replay" ranges (one
# cudaGraphLaunch, the same kernels on the stream row, gaps gone), and the
# "partial" ranges, where only the middle of the network is graphed with
# make_graphed_callables and the rest runs eagerly, as in PyTorch's notes
# on CUDA graphs. Inference only here (a backward would be graphed too).
import torch

torch.manual_seed(0)
layers = [torch.nn.Linear(64, 64) for _ in range(8)]
head = torch.nn.Sequential(*[m for layer in layers[:2] for m in (layer, torch.nn.ReLU())]).cuda()
middle = torch.nn.Sequential(*[m for layer in layers[2:6] for m in (layer, torch.nn.ReLU())]).cuda()
tail = torch.nn.Sequential(*[m for layer in layers[6:] for m in (layer, torch.nn.ReLU())]).cuda()
for p in list(head.parameters()) + list(middle.parameters()) + list(tail.parameters()):
    p.requires_grad_(False)


def network(x):
    return tail(middle(head(x)))


batches = [torch.randn(32, 64, device="cuda") for _ in range(4)]

# eager: every kernel is launched from Python
for i, batch in enumerate(batches):
    torch.cuda.nvtx.range_push("eager {}".format(i))
    eager_out = network(batch)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()

# whole-network capture: warm up on a side stream, capture, replay
static_input = torch.zeros(32, 64, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        network(static_input)
torch.cuda.current_stream().wait_stream(side)

g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    static_output = network(static_input)

for i, batch in enumerate(batches):
    torch.cuda.nvtx.range_push("graph replay {}".format(i))
    static_input.copy_(batch)
    g.replay()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
assert (static_output - eager_out).abs().max().item() < 1e-5

# partial capture: only the middle of the network is graphed
middle = torch.cuda.make_graphed_callables(middle, (torch.zeros(32, 64, device="cuda"),))
for i, batch in enumerate(batches):
    torch.cuda.nvtx.range_push("partial {}".format(i))
    partial_out = network(batch)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
assert (partial_out - eager_out).abs().max().item() < 1e-5
print("OK")
