# gather and index_select gradients (#15): repeated indices accumulate,
# unread positions get zero. The expected output is what Debian's
# python3-torch 1.13 prints for this script (`python3 gather_grad.py`).
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
base = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0], [-2.0, 0.75, 1.0, 0.1]]
w = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [3.0, -2.0]], device=dev)

x = torch.tensor(base, device=dev, requires_grad=True)
y = torch.gather(x, 1, torch.tensor([[0, 0], [3, 1], [2, 3]], device=dev))
print(y.grad_fn.name())
(y * w).sum().backward()
print(x.grad.tolist())

for dim, idx in ((0, [2, 0, 2]), (1, [3, 1]), (-1, [0, 0, 0])):
    x = torch.tensor(base, device=dev, requires_grad=True)
    y = torch.index_select(x, dim, torch.tensor(idx, device=dev))
    print(y.grad_fn.name(), list(y.shape))
    (y * torch.arange(1.0, y.numel() + 1, device=dev).reshape(y.shape)).sum().backward()
    print(x.grad.tolist())

# the method forms, and a cross-entropy-like pick of one logit per row
x = torch.tensor(base, device=dev, requires_grad=True)
picked = x.log_softmax(1).gather(1, torch.tensor([[1], [3], [0]], device=dev))
(-picked.mean()).backward()
print([[round(v, 5) + 0.0 for v in row] for row in x.grad.tolist()])
