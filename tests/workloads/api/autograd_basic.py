# Autograd from Python: requires_grad propagating through ops, is_leaf,
# grad_fn's name() and next_functions, backward() with gradient=,
# retain_graph=, inputs=, accumulation into .grad, zero_grad(set_to_none),
# torch.autograd.grad and backward, retain_grad, hooks and their handles,
# detach, no_grad, nn.Parameter. The computation is on CUDA when there is
# one (here, always) and on the CPU otherwise: the expected output is what
# Debian's python3-torch 1.13 (CPU only) prints for this script
# (`python3 autograd_basic.py`); values are printed with fixed formatting
# so that the device does not show.
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"


def show(name, t):
    if t is None:
        print(name, None)
    else:
        print(name, list(t.shape), " ".join("%.4f" % v for v in t.detach().reshape(-1).tolist()))


def node(t):
    fn = t.grad_fn
    return None if fn is None else fn.name()


x = torch.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], device=dev, requires_grad=True)
c = torch.tensor([4.0, 5.0, 6.0], device=dev)
print(x.requires_grad, x.is_leaf, node(x), c.requires_grad, c.is_leaf)

# requires_grad flows through ops; grad_fn names the op's backward
y = (x * w + c) / w - (-x)
print(y.requires_grad, y.is_leaf, node(y))
print([(None if f is None else f.name(), i) for f, i in y.grad_fn.next_functions])
acc = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
print(acc.name(), [(f.name(), i) for f, i in acc.next_functions])
print(acc.next_functions[0][0].next_functions)
print(node(c * 2), node(x + 1), node(1 - x), node(x ** 2), node(x.exp()), node(x.sum()),
      node(x.mean()), node(x.view(3, 1)), node(x.unsqueeze(0)), node(x[1]), node(x[1:]),
      node(x.expand(2, 3)), node(x.clone()), node(x.relu()), node(x.max()))

out = y.sum()
show("out", out)
out.backward()
show("x.grad", x.grad)
show("w.grad", w.grad)

# a second pass accumulates
(x * x).sum().backward()
show("x.grad", x.grad)
# zero_grad(set_to_none=True) leaves None
x.grad = None
w.grad = None
print(x.grad, w.grad)

# unary math, reductions, pow
z = (x ** 2).mean() + x.exp().sum() * 0.1 + x.sin().sum() - x.sqrt().sum() + x.tanh().sum() \
    + x.sigmoid().sum() + x.log().sum() + x.cos().sum() + x.abs().sum() + x.reciprocal().sum() \
    + (2 ** x).sum() + x.max() + (x ** w).sum()
z.backward()
show("x.grad", x.grad)
show("w.grad", w.grad)
x.grad = None
w.grad = None

# views, broadcasting and matmul
a = torch.arange(6.0, device=dev).reshape(2, 3).requires_grad_()
b = (a.t().reshape(6).view(2, 3)[1] * 3).sum() + (a * torch.tensor([1.0, 2.0, 3.0], device=dev)).sum()
b.backward()
show("a.grad", a.grad)
m = torch.tensor([[1.0, -2.0], [3.0, 4.0], [-5.0, 6.0]], device=dev, requires_grad=True)
p = torch.tensor([[0.5, 1.0, -1.0], [2.0, 0.0, 1.0]], device=dev, requires_grad=True)
(m @ p).relu().sum(0).mean().backward()
show("m.grad", m.grad)
show("p.grad", p.grad)
s = m.sum(1, keepdim=True) * m.mean(0)
s.backward(torch.ones(3, 2, device=dev))
show("m.grad", m.grad)

# gradient= for a non-scalar root; retain_graph for a second pass
v = x * w
v.backward(torch.tensor([1.0, 0.1, 0.01], device=dev), retain_graph=True)
show("x.grad", x.grad)
v.backward(torch.tensor([1.0, 1.0, 1.0], device=dev))
show("x.grad", x.grad)
x.grad = None
w.grad = None

# inputs= accumulates into those only
(x * w).sum().backward(inputs=[w])
show("x.grad", x.grad)
show("w.grad", w.grad)
w.grad = None

# torch.autograd.grad leaves .grad alone
g, = torch.autograd.grad((x ** 3).sum(), x)
show("g", g)
print(x.grad)
gx, gc = torch.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
show("gx", gx)
print(gc)
# create_graph: a gradient of a gradient
g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
print(node(g))
g2, = torch.autograd.grad(g.sum(), x)
show("g2", g2)
torch.autograd.backward([(x * x).sum(), (w * 2).sum()])
show("x.grad", x.grad)
show("w.grad", w.grad)
x.grad = None
w.grad = None

# retain_grad keeps a non-leaf's gradient
k = x * 3
print(k.retains_grad)
k.retain_grad()
(k * k).sum().backward()
print(k.retains_grad)
show("k.grad", k.grad)
x.grad = None

# hooks: the returned value replaces the gradient; remove() takes it out
seen = []
h = x.register_hook(lambda grad: seen.append(grad.sum().item()))
h2 = x.register_hook(lambda grad: grad * 10)
(x * 2).sum().backward()
show("x.grad", x.grad)
print(seen)
h.remove()
h2.remove()
x.grad = None
(x * 2).sum().backward()
show("x.grad", x.grad)
print(seen)
x.grad = None

# detach and no_grad cut the graph
d = (x * 2).detach()
print(d.requires_grad, d.is_leaf, node(d))
e = x.clone()
e.detach_()
print(e.requires_grad, node(e))
with torch.no_grad():
    q = x * 2
print(q.requires_grad, node(q))
print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((x * 2).requires_grad)
torch.set_grad_enabled(True)
print((x * 2).requires_grad)

# integer results do not require grad
print((x > 1).requires_grad, x.argmax().requires_grad if hasattr(x, "argmax") else False)

# nn.Parameter is a leaf that requires grad; a module's gradients
lin = torch.nn.Linear(3, 2).to(dev)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
    lin.bias.fill_(0.5)
print(type(lin.weight).__name__, lin.weight.requires_grad, lin.weight.is_leaf)
loss = lin(torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]], device=dev)).pow(2).mean()
loss.backward()
show("weight.grad", lin.weight.grad)
show("bias.grad", lin.bias.grad)

# maximum and minimum split the gradient on ties
y = torch.tensor([2.0, 2.0, 1.0], device=dev, requires_grad=True)
(torch.maximum(x, y) * torch.tensor([1.0, 2.0, 3.0], device=dev)).sum().backward()
torch.minimum(x, y).sum().backward()
show("x.grad", x.grad)
show("y.grad", y.grad)

# max/min over a dim: the gradient goes where the indices point (one of
# the ties: the first)
t = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 4.0]], device=dev, requires_grad=True)
values, indices = t.max(1)
print(node(values), indices.requires_grad)
(values * torch.tensor([1.0, 2.0], device=dev)).sum().backward()
values, indices = t.min(0, keepdim=True)
(values * 3).sum().backward()
show("t.grad", t.grad)

# copy_ into a plain tensor: its gradient goes to the source (CopyBackwards)
buf = torch.zeros(2, 3, device=dev, dtype=torch.float64)
buf.copy_(x)
print(buf.requires_grad, buf.is_leaf, node(buf), buf.grad_fn)
x.grad = None
(buf * buf).sum().backward()
show("x.grad", x.grad)
