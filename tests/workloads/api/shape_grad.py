# tril, triu, flip and cumsum gradients (#15). The expected output is
# what Debian's python3-torch 1.13 prints for this script
# (`python3 shape_grad.py`) on the same inputs.
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
base = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0], [-2.0, 0.75, 1.0, 0.1]]
w = torch.arange(1.0, 13.0, device=dev).reshape(3, 4)

cases = [
    ("tril", lambda x: torch.tril(x)),
    ("tril 1", lambda x: torch.tril(x, 1)),
    ("triu -1", lambda x: torch.triu(x, -1)),
    ("triu", lambda x: x.triu()),
    ("flip 0", lambda x: torch.flip(x, [0])),
    ("flip 0 1", lambda x: x.flip([0, 1])),
    ("cumsum 1", lambda x: torch.cumsum(x, 1)),
    ("cumsum 0", lambda x: x.cumsum(0)),
    ("cumsum -1", lambda x: x.cumsum(-1)),
]
for name, fn in cases:
    x = torch.tensor(base, device=dev, requires_grad=True)
    y = fn(x)
    (y * w).sum().backward()
    print(name, y.grad_fn.name(), x.grad.tolist())
