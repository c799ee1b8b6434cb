# masked_fill gradients (#15): the filled positions get none, as in an
# attention mask. The expected output is what Debian's python3-torch 1.13
# prints for this script (`python3 masked_fill_grad.py`).
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
base = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0], [-2.0, 0.75, 1.0, 0.1]]
mask = torch.tensor([[False, True, True, True], [False, False, True, True], [False, False, False, True]],
                    device=dev)
w = torch.arange(1.0, 13.0, device=dev).reshape(3, 4)

x = torch.tensor(base, device=dev, requires_grad=True)
y = x.masked_fill(mask, 0.0)
(y * w).sum().backward()
print(y.grad_fn.name(), x.grad.tolist())

x = torch.tensor(base, device=dev, requires_grad=True)
scores = (x * 2).masked_fill_(mask, float("-inf"))
p = torch.softmax(scores, 1)
(p * w).sum().backward()
print(scores.grad_fn.name(), [[round(v, 5) + 0.0 for v in row] for row in x.grad.tolist()])

try:
    torch.tensor(base, device=dev, requires_grad=True).masked_fill_(mask, 0.0)
except RuntimeError as e:
    print("RuntimeError", e)
