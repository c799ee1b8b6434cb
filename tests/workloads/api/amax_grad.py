# amax and amin gradients (#15): ties share the gradient evenly. The
# expected output is what Debian's python3-torch 1.13 prints for this
# script (`python3 amax_grad.py`) on the same inputs.
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
base = [[0.5, 2.0, 2.0, 0.25], [3.0, 0.0, -0.5, 3.0], [-2.0, 0.75, 1.0, 0.1]]

cases = [
    ("amax 1", lambda x: torch.amax(x, 1)),
    ("amax 0 keepdim", lambda x: torch.amax(x, 0, keepdim=True)),
    ("amax all", lambda x: torch.amax(x, (0, 1))),
    ("amin 1", lambda x: x.amin(1)),
    ("amin -1 keepdim", lambda x: x.amin(-1, True)),
]
for name, fn in cases:
    x = torch.tensor(base, device=dev, requires_grad=True)
    y = fn(x)
    (y * torch.arange(1.0, y.numel() + 1, device=dev).reshape(y.shape)).sum().backward()
    print(name, y.grad_fn.name(), x.grad.tolist())
