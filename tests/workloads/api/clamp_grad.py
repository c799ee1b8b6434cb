# clamp_min, clamp_max and clamp gradients (#15): at a tie the gradient
# goes to self. The expected output is what Debian's python3-torch 1.13
# prints for this script (`python3 clamp_grad.py`) on the same inputs.
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
base = [0.5, -1.0, 2.0, 0.25, 1.0]
w = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device=dev)

for name in ("clamp_min", "clamp_max"):
    x = torch.tensor(base, device=dev, requires_grad=True)
    y = getattr(torch, name)(x, 0.5)
    (y * w).sum().backward()
    print(name, "number", y.grad_fn.name(), x.grad.tolist())
    x = torch.tensor(base, device=dev, requires_grad=True)
    b = torch.tensor([0.5, 0.0, 2.5, 0.25, -1.0], device=dev, requires_grad=True)
    y = getattr(torch, name)(x, b)
    (y * w).sum().backward()
    print(name, "tensor", y.grad_fn.name(), x.grad.tolist(), b.grad.tolist())

x = torch.tensor(base, device=dev, requires_grad=True)
(torch.clamp(x, 0.0, 1.0) * w).sum().backward()
print("clamp", x.grad.tolist())
x = torch.tensor(base, device=dev, requires_grad=True)
(x.clamp(min=0.25) * w).sum().backward()
print("clamp min", x.grad.tolist())
