# The unary math family's gradients (#15): each op's node name and the
# gradient of its sum, and of a weighted sum. The expected output is what
# Debian's python3-torch 1.13 prints for this script
# (`python3 unary_grad.py`) on the same inputs.
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
base = [0.3, 0.75, 1.2, 2.6]
w = torch.tensor([1.0, -2.0, 0.5, 3.0], device=dev)

for name in ("tan", "atan", "asinh", "sinh", "cosh", "exp2", "expm1", "log2", "log10", "log1p",
             "rsqrt", "erf", "erfc", "floor", "ceil", "round", "trunc", "sign", "frac"):
    x = torch.tensor(base, device=dev, requires_grad=True)
    y = getattr(torch, name)(x)
    (y * w).sum().backward()
    print(name, y.grad_fn.name(), [round(v, 4) + 0.0 for v in x.grad.tolist()])
