# F.embedding_bag and nn.EmbeddingBag (#16): sum, mean and max bags from
# offsets or a 2-D input, per-sample weights, include_last_offset, empty
# bags, padding_idx, gradients and the errors. Values only: PyTorch's node
# is one EmbeddingBagBackward0, ours the gather/add/max ops'. The expected
# output is what Debian's python3-torch 1.13 prints for this script.
import torch, torch.nn.functional as F
torch.manual_seed(0)
w = torch.randn(10, 3, requires_grad=True)
inp = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
off = torch.tensor([0, 4])
for mode in ("sum", "mean", "max"):
    o = F.embedding_bag(inp, w, off, mode=mode)
    g, = torch.autograd.grad(o.sum(), w)
    print(mode, o.detach(), g.sum(1))
print(F.embedding_bag(inp.view(2, 4), w, mode="mean").detach())
print(F.embedding_bag(inp, w, off, mode="sum", per_sample_weights=torch.arange(8.)).detach())
print(F.embedding_bag(inp, w, torch.tensor([0, 4, 8]), include_last_offset=True).detach())
print(F.embedding_bag(inp, w, torch.tensor([0, 0, 4]), mode="mean").detach())
print(F.embedding_bag(inp, w, torch.tensor([0, 0, 4]), mode="max").detach())
print(F.embedding_bag(inp, w, off, padding_idx=4).detach())
print(F.embedding_bag(inp, w, off, mode="max", padding_idx=4).detach())
bag = torch.nn.EmbeddingBag(10, 3, mode="max")
print(bag, bag(inp, off).shape, torch.nn.EmbeddingBag(5, 2, padding_idx=1).weight[1])
for bad in (lambda: F.embedding_bag(inp, w), lambda: F.embedding_bag(inp.view(2, 4), w, off),
            lambda: F.embedding_bag(inp, w, off, mode="mean", per_sample_weights=torch.ones(8))):
    try: bad()
    except Exception as e: print(type(e).__name__, e)
