# torch.autograd.functional (#15): jacobian (tensor and tuple inputs and
# outputs, strict, create_graph), hessian, vjp, jvp, vhp and hvp, over
# reverse-mode autograd as PyTorch's own. The expected output is what
# Debian's python3-torch 1.13 prints for this script.
import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp, vhp, hvp
def f(x):
    return x.exp() * x.sum()
def g(x, y):
    return (x * y).sin(), x + y ** 2
x = torch.tensor([0.5, -1.0, 2.0])
y = torch.tensor([1.5, 0.3, -0.7])
print(jacobian(f, x))
J = jacobian(g, (x, y))
print(len(J), len(J[0]), J[0][0], J[1][1])
print(hessian(lambda t: (t ** 3).sum() + t.prod(), x))
H = hessian(lambda a, b: (a * b).sum() ** 2, (x, y))
print(H[0][1])
print(vjp(f, x, torch.ones(3)))
print(jvp(f, x, torch.tensor([1.0, 0.0, 0.0])))
print(vhp(lambda t: (t ** 3).sum(), x, torch.ones(3)))
print(hvp(lambda t: (t.exp()).sum(), x, torch.tensor([1.0, 2.0, 3.0])))
print(jacobian(lambda t: t[:2] * 0 + 1.0, x))
try:
    jacobian(lambda t: t[:2] * 0 + 1.0, x, strict=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    vjp(f, x)
except Exception as e:
    print(type(e).__name__, e)
w = torch.tensor([1.0, 2.0], requires_grad=True)
jc = jacobian(lambda t: t * w, torch.tensor([3.0, 4.0]), create_graph=True)
print(jc.requires_grad)
