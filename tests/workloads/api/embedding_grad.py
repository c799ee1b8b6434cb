# nn.Embedding gradients (EmbeddingBackward0): rows added up at repeated indices,
# the padding_idx row left at zero; against PyTorch 1.13.
import torch, torch.nn as nn
for dev in ("cpu", "cuda" if torch.cuda.is_available() else "cpu"):
    torch.manual_seed(0)
    e = nn.Embedding(5, 3, padding_idx=-2).to(dev)
    idx = torch.tensor([[0, 3, 1], [3, 3, 4]]).to(dev)
    out = e(idx)
    (out * torch.arange(18.0, device=dev).view(2, 3, 3)).sum().backward()
    print(e.weight.grad.tolist(), e.weight.grad_fn if hasattr(e.weight, "grad_fn") else None, out.grad_fn.name())
    e2 = nn.Embedding(4, 2).to(dev)
    x = e2(torch.tensor(2).to(dev))
    (x * 3).sum().backward()
    print(e2.weight.grad.tolist())
