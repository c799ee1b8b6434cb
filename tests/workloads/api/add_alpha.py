# add and sub with alpha (#16): one kernel where no graph is recorded (an
# optimizer's update), other * alpha first where one is (its node carries
# alpha into the gradient). Values, in-place forms, broadcasting, integer
# tensors and gradients; the expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
a = torch.randn(3, 4).to(dev)
b = torch.randn(3, 4).to(dev)
row = torch.randn(4).to(dev)


def show(t):
    return [round(v, 6) for v in t.flatten().tolist()[:6]]


print("add", show(a.add(b, alpha=0.3)), show(torch.add(a, b, alpha=-2)))
print("sub", show(a.sub(b, alpha=1.5)), show(torch.sub(a, row, alpha=0.25)))
c = a.clone()
c.add_(row, alpha=-0.1)
print("add_", show(c))
c.sub_(b, alpha=3)
print("sub_", show(c))
h = a.double()
h.add_(b.double(), alpha=1e-3)
print("float64", show(h))
i = torch.arange(6).to(dev)
print("int", i.add(i, alpha=2).tolist(), i.sub(i, alpha=3).tolist())
w = a.clone().requires_grad_()
y = w.add(b, alpha=0.5).sub(w, alpha=0.25)
y.sum().backward()
print("grad", show(w.grad), y.grad_fn.name())
v = b.clone().requires_grad_()
z = a.add(v, alpha=0.5)
z.sum().backward()
print("grad other", show(v.grad))
with torch.no_grad():
    p = w.detach().clone()
    p.add_(w.grad, alpha=-0.01)
print("update", show(p))
