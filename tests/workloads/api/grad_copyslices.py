# In-place writes into views of tensors that take part in autograd (#15):
# the base's history is rebased (CopySlices), the view's is
# AsStridedBackward0, and gradients reach what was written. The expected
# output is what Debian's python3-torch 1.13 prints for this script.
import torch
DEV = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.zeros(4, device=DEV); w = torch.tensor([1.0, 2.0], device=DEV, requires_grad=True)
x[1:3] = w * 2
print(x.requires_grad, x.grad_fn.name(), x.is_leaf)
(x * torch.arange(4.0, device=DEV)).sum().backward()
print(w.grad.cpu())
out = torch.zeros(3, 2, device=DEV)
a = torch.tensor([1.0, 2.0, 3.0], device=DEV, requires_grad=True)
out[:, 0] = a * a
out[:, 1] = a + 1
print(out.grad_fn.name(), [f[0] and f[0].name() for f in out.grad_fn.next_functions])
(out * torch.tensor([[1.0, 10.0]] * 3, device=DEV)).sum().backward()
print(a.grad.cpu())
h = torch.ones(3, device=DEV, requires_grad=True) * 2
v = h[0]
v.mul_(3)
print(h.grad_fn.name(), v.grad_fn.name())
h.sum().backward()
y = torch.randn(3, requires_grad=True) * 1
y[0] = 5.0
print(y.grad_fn.name())
b = torch.randn(3, requires_grad=True)
try:
    b[0] = 1.0
except RuntimeError as e:
    print(e)
try:
    b[0:1].mul_(2)
except RuntimeError as e:
    print(e)
# a row of a batch built in a loop, then used
rows = torch.zeros(2, 3, device=DEV)
p = torch.tensor([0.5, -1.0, 2.0], device=DEV, requires_grad=True)
for k in range(2):
    rows[k] = p * (k + 1)
rows.pow(2).sum().backward()
print(p.grad.cpu(), rows.grad_fn.name())
# under no_grad nothing is recorded
with torch.no_grad():
    q = torch.zeros(3, device=DEV)
    q[0] = p[0]
print(q.requires_grad)
# a view taken under no_grad may not be written with grad mode on (PyTorch's error)
w = torch.ones(2, requires_grad=True)
y = torch.zeros(4, requires_grad=True) * 1
with torch.no_grad():
    v = y[1:3]
try:
    v.copy_(w * 2)
    print(y.grad_fn, v.grad_fn)
except RuntimeError as e:
    print(e)
with torch.no_grad():
    v = y[1:3]
    v.fill_(3)
print(y.tolist())
p = torch.nn.Parameter(torch.ones(3))
with torch.no_grad():
    p[0] = 5
print(p.tolist())

# in-place through views of views (transpose, view, reshape, unsqueeze, expand)

x = torch.arange(6.0).reshape(2, 3).requires_grad_()
b = torch.tensor(2.0, requires_grad=True)
for f in (lambda y: y.t()[0].mul_(b), lambda y: y.view(3, 2)[1].mul_(b), lambda y: y.reshape(6)[1:4].mul_(b),
          lambda y: y[:, 1].mul_(b), lambda y: y.unsqueeze(0)[0, 1].mul_(b), lambda y: y.transpose(0, 1)[2].mul_(b),
          lambda y: y.expand(2, 2, 3)[0].mul_(b)):
    x.grad = None
    b.grad = None
    y = x * 1
    try:
        f(y)
        (y * torch.arange(6.0).reshape(2, 3)).sum().backward()
        print(y.grad_fn.name(), x.grad.tolist(), b.grad.item())
    except Exception as e:
        print(type(e).__name__, e)
