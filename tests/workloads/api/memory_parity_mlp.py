# Exact CUDA memory of a training step (#15), worked out by hand from
# PyTorch's rules, and checked against real PyTorch 2.11 (CUDA 13) on an
# H200 (sm_90), whose output is this file's .expected line by line: the
# caching allocator rounds every block
# up to 512 bytes (kMinBlockSize); a tensor's block lives while a Python
# name, a graph node's saved variable (derivatives.yaml of 1.13) or the
# engine holds it; saved variables go when the engine has run their node
# (unless retain_graph) or when the graph is freed.
#
# The model: Linear(256, 512) - ReLU - Linear(512, 10), batch 64, float32,
# cross_entropy. Sizes, rounded:
#   W1 512x256 524288   b1 512 2048   W2 10x512 20480   b2 10 -> 512
#   params P = 547328; x 64x256 65536; y 64 int64 512
#   h1 = x W1^T + b1 (addmm) and r = relu(h1): 64x512 131072 each
#   out 64x10 2560; log_softmax 2560; nll_loss output 512, total_weight 512
#
# The cuBLAS workspaces are allocations of the caching allocator too, and
# count in memory_allocated (measured on the H200 with PyTorch 2.11: the
# first hand derivation left them out and was off by exactly these): the
# first GEMM of a (cuBLAS handle, stream) pair allocates 32 MiB (the
# default CUBLAS_WORKSPACE_CONFIG on compute capability 9.0, :4096:8), and
# the first cuBLASLt GEMM (addmm with nn.Linear's bias row) 1 MiB more.
# The handle is per thread: the forward's is the main thread's; the
# backward runs on the autograd engine's thread for the device, whose
# handle gets its own 32 MiB at its first mm (a plain mm: no Lt). They live
# until torch._C._cuda_clearCublasWorkspaces() or the end of the process.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
x = torch.randn(64, 256, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")

P = 524288 + 2048 + 20480 + 512
BASE = P + 65536 + 512
ACT = 131072
WS = 32 * 1024 * 1024        # a handle's workspace for a stream
LT = 1024 * 1024             # its cuBLASLt workspace
MAIN = WS + LT               # the main thread's, from the first Linear
ENGINE = WS                  # the engine thread's, from the first backward's mm
failures = []


def check(what, got, want):
    ok = got == want
    if not ok:
        failures.append(what)
    print("{:<34} {:>9} {}".format(what, got, "ok" if ok else "expected {}".format(want)))


check("params, x, y", torch.cuda.memory_allocated(), BASE)

# Forward: Sequential drops h1 once relu has made r (ReluBackward0 saves
# its result; AddmmBackward0 saves mat1 = x and r, mat2 = a view of the
# weight); the peak is h1 and r together. The first addmm made MAIN.
torch.cuda.reset_peak_memory_stats()
out = model(x)
check("forward", torch.cuda.memory_allocated(), BASE + ACT + 2560 + MAIN)
check("forward peak", torch.cuda.max_memory_allocated(), BASE + 2 * ACT + MAIN)

# cross_entropy = log_softmax (saves its result) + nll_loss_forward (its
# output, and total_weight saved by NllLossBackward0): no other temporary.
loss = F.cross_entropy(out, y)
LOSS = BASE + ACT + 2560 + 2560 + 512 + 512 + MAIN
check("loss", torch.cuda.memory_allocated(), LOSS)

# Backward, node by node. The engine frees a node's incoming gradients
# when it has run, then its saved variables; the root gradient
# ones_like(loss) (512) lives to the end, held by backward()'s caller.
#   NllLossBackward0: + its gradient (64x10) 2560; total_weight freed
#   LogSoftmaxBackward0: + 2560 (one _log_softmax_backward_data); the
#     incoming 2560 and the log_softmax result freed
#   Linear 2 (addmm): the engine thread's first mm makes ENGINE;
#     + r's gradient 131072, + W2's 20480 (by
#     mm_mat2_backward's column-major rule, contiguous through t(): the
#     AccumulateGrad steals it), + b2's sum 512; the incoming 2560 freed
#   ReluBackward0: + 131072 (one threshold_backward); the incoming
#     gradient and r freed
#   Linear 1: + W1's 524288, + b1's 2048; the incoming 131072 freed
# Tensor hooks on each layer's output see what is allocated as its
# gradient arrives, and the peak so far.
seen = {}


def watch(i):
    def on_grad(g):
        seen[i] = (torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())

    def hook(mod, inp, o):
        o.register_hook(on_grad)
    return hook


handles = [m.register_forward_hook(watch(i)) for i, m in enumerate(model)]
del out, loss
out = model(x)
loss = F.cross_entropy(out, y)
for h in handles:
    h.remove()
torch.cuda.reset_peak_memory_stats()
loss.backward()
ROOT = 512
G2 = LOSS + ROOT + 2560 + 2560 - 512 - 2560 - 2560   # after the loss's two nodes
check("grad at Linear 2's output", seen.get(2, (0, 0))[0], G2)
check("  peak so far", seen.get(2, (0, 0))[1], LOSS + ROOT + 2560 - 512 + 2560)
G1 = G2 + ENGINE + ACT + 20480 + 512 - 2560
check("grad at the ReLU's output", seen.get(1, (0, 0))[0], G1)
check("  peak so far", seen.get(1, (0, 0))[1], G2 + ENGINE + ACT + 20480 + 512)
G0 = G1 + ACT - ACT - ACT
check("grad at Linear 1's output", seen.get(0, (0, 0))[0], G0)
check("  peak so far", seen.get(0, (0, 0))[1], G1 + ACT)
WORKSPACES = MAIN + ENGINE    # from here on, always there
AFTER = BASE + 2560 + 512 + P + WORKSPACES
check("backward peak", torch.cuda.max_memory_allocated(), G0 + 524288 + 2048)
# Left: P, x, y, out, loss and the four .grad (P).
check("after backward", torch.cuda.memory_allocated(), AFTER)
print(loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name())

# retain_graph: the saved variables (r, the log_softmax result,
# total_weight) outlive the pass; a second pass accumulates in place
# (.grad exists: AccumulateGrad adds into it) and then frees them.
model.zero_grad(set_to_none=True)
del out, loss
check("grads set to None", torch.cuda.memory_allocated(), BASE + WORKSPACES)
out = model(x)
loss = F.cross_entropy(out, y)
loss.backward(retain_graph=True)
SAVED = ACT + 2560 + 512
check("after backward(retain_graph)", torch.cuda.memory_allocated(), AFTER + SAVED)
g0 = model[0].bias.grad.clone()
loss.backward()
check("after the second backward", torch.cuda.memory_allocated(), AFTER + 2048)
print("accumulated twice", torch.equal(model[0].bias.grad, 2 * g0))
del g0
try:
    loss.backward()
except RuntimeError as e:
    print(str(e).split(".")[0])

# A loss accumulated without .item(): each iteration's graph stays alive
# through total's AddBackward0 chain (which saves nothing): per iteration
# r, the log_softmax result and total_weight (SAVED); out, loss and total
# are one block each, their predecessors freed on reassignment.
model.zero_grad(set_to_none=True)
del out, loss
total = 0
for i in range(3):
    out = model(x)
    loss = F.cross_entropy(out, y)
    total += loss
    check("leaky loop, iteration {}".format(i), torch.cuda.memory_allocated(),
          BASE + WORKSPACES + (i + 1) * SAVED + 2560 + 512 + 512)
del out, loss, total
check("leak freed with the graph", torch.cuda.memory_allocated(), BASE + WORKSPACES)
total = 0
for i in range(3):
    out = model(x)
    loss = F.cross_entropy(out, y)
    total += loss.item()
# .item() frees each old graph; the last loss still holds its own
check("with .item()", torch.cuda.memory_allocated(), BASE + WORKSPACES + SAVED + 2560 + 512)
del out, loss

# Checkpointed vs plain: checkpoint(use_reentrant=False) packs no saved
# tensor, so only out remains after the forward (the plain forward keeps
# r); its forward peak is the plain one (h1 and r live together).
torch.cuda.reset_peak_memory_stats()
out = checkpoint(model, x, use_reentrant=False)
check("checkpointed forward", torch.cuda.memory_allocated(), BASE + WORKSPACES + 2560)
check("checkpointed forward peak", torch.cuda.max_memory_allocated(), BASE + WORKSPACES + 2 * ACT)
del out
out = model(x)
check("plain forward", torch.cuda.memory_allocated(), BASE + WORKSPACES + ACT + 2560)
del out

print("all as PyTorch's rules say" if not failures else "differs: " + ", ".join(failures))
