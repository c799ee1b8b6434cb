# The cuBLAS workspaces, as PyTorch 2.11 allocates them (CublasHandlePool.cpp;
# measured on an H200): the first GEMM of a (cuBLAS handle, stream) pair
# takes 32 MiB from the caching allocator on compute capability 9.0, and
# the first cuBLASLt GEMM (addmm with a bias row: nn.Linear) 1 MiB more.
# A handle belongs to a host thread; the autograd engine's device thread
# has its own. They count in memory_allocated and show in snapshots until
# torch._C._cuda_clearCublasWorkspaces(). Each figure below is the growth
# of memory_allocated beyond the tensors the step made.
import threading

import torch
import torch.nn.functional as F

MiB = 1024 * 1024
M = 64 * 64 * 4  # one 64x64 float32 matrix: 16384 bytes


def grown(before, tensors=0):
    return (torch.cuda.memory_allocated() - before - tensors * M) // MiB


a = torch.randn(64, 64, device="cuda")
b = torch.randn(64, 64, device="cuda")
before = torch.cuda.memory_allocated()
c = a @ b
print("first mm: MiB", grown(before, 1))
before = torch.cuda.memory_allocated()
d = torch.mm(a, b)
e = torch.bmm(a[None], b[None])
f = a @ b[0]
# same thread, same stream: the handle's workspace is there
print("mm, bmm, mv again: bytes", torch.cuda.memory_allocated() - before - 2 * M - 512)
del c, d, e, f

# A GEMM with nothing to compute takes no handle: an empty result, k = 0.
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    before = torch.cuda.memory_allocated()
    z = torch.empty(0, 64, device="cuda") @ b
    k0 = torch.empty(64, 0, device="cuda") @ torch.empty(0, 64, device="cuda")
    print("empty and k = 0 on a new stream: MiB", grown(before, 1), z.shape, k0.shape)
    del z, k0
    before = torch.cuda.memory_allocated()
    g = a @ b
    print("first mm on that stream: MiB", grown(before, 1))
    del g
torch.cuda.synchronize()

# cuBLASLt: addmm with a contiguous bias row and beta 1 (F.linear with a
# bias) takes the Lt workspace too; beta 0.5 or no bias stay on cuBLAS.
bias = torch.randn(64, device="cuda")
before = torch.cuda.memory_allocated()
h = torch.addmm(bias, a, b, beta=0.5)
i = F.linear(a, b)
print("addmm beta 0.5, linear without bias: MiB", grown(before, 2))
before = torch.cuda.memory_allocated()
j = F.linear(a, b, bias)
print("linear with bias: MiB", (torch.cuda.memory_allocated() - before - M) / MiB)
del h, i, j

# Backward runs on the device's engine thread: its handle, its workspace.
w = torch.randn(64, 64, device="cuda", requires_grad=True)
before = torch.cuda.memory_allocated()
(a @ w).sum().backward()
print("first backward: MiB", grown(before, 1))
before = torch.cuda.memory_allocated()
w.grad = None
(a @ w).sum().backward()
print("second backward: MiB", grown(before, 0))

# Another host thread reserves a handle of its own.
grown_in_thread = []


def work():
    t0 = torch.cuda.memory_allocated()
    r = a @ b
    grown_in_thread.append(grown(t0, 1))
    del r


t = threading.Thread(target=work)
t.start()
t.join()
print("a new thread's first mm: MiB", grown_in_thread)

# The snapshot shows each workspace as a block of its own, named by the
# PyTorch function that allocates it, at the line of the op (in the order
# of the lines: the segments' order is their addresses').
found = []
for seg in torch.cuda.memory_snapshot():
    for blk in seg["blocks"]:
        if blk["state"] == "active_allocated" and blk["size"] >= MiB:
            frame = blk["frames"][0]
            found.append((frame["line"], seg["segment_type"], blk["size"], frame["name"]))
for line, pool, size, name in sorted(found):
    print("  ", pool, size, name, "line", line)
ws = 4 * 32 * MiB + MiB
print("allocated before clearing:", torch.cuda.memory_allocated() - ws)
reserved = torch.cuda.memory_reserved()
torch._C._cuda_clearCublasWorkspaces()
print("cleared: allocated", torch.cuda.memory_allocated(), "reserved unchanged", torch.cuda.memory_reserved() == reserved)
torch.cuda.empty_cache()
print("after empty_cache: reserved MiB", torch.cuda.memory_reserved() / MiB)
before = torch.cuda.memory_allocated()
c = a @ b
print("the next mm allocates again: MiB", grown(before, 1))
