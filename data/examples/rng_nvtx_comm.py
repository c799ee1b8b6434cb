# Random state, NVTX ranges and the comm collectives.
#
# Restoring the RNG state replays the same random numbers; NVTX ranges
# appear as nested bars on the NVTX row; broadcast, scatter, gather and
# reduce_add move data between GPUs 0 and 1 (run with 2 GPUs or more) and
# show up as peer copies.
import torch
torch.cuda.manual_seed_all(42)
state = torch.cuda.get_rng_state()
a = torch.randn(3, device='cuda')
torch.cuda.set_rng_state(state)
b = torch.randn(3, device='cuda')
print(torch.equal(a, b), torch.cuda.initial_seed())

torch.cuda.nvtx.range_push("outer")
torch.cuda.nvtx.mark("tick")
torch.cuda.nvtx.range_push("inner")
print(torch.cuda.nvtx.range_pop(), torch.cuda.nvtx.range_pop())

t = torch.arange(8.0, device='cuda:0')
copies = torch.cuda.comm.broadcast(t, [0, 1])
print([c.device for c in copies])
chunks = torch.cuda.comm.scatter(t, [0, 1])
print([c.tolist() for c in chunks])
print(torch.cuda.comm.gather(chunks, destination=0).tolist())
print(torch.cuda.comm.reduce_add(copies, destination=1).tolist())
