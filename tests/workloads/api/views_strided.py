# Tensor.unfold and torch.as_strided (views of the same storage; with a
# gradient to flow, the gathered windows), logit, sgn, resize_as_ and the
# layout predicates (#14). The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch
x = torch.arange(10.)
print(x.unfold(0, 3, 2), x.unfold(0, 3, 2).stride())
y = torch.arange(12.).reshape(3, 4)
print(y.unfold(1, 2, 1).shape, y.unfold(0, 2, 1).shape, y.unfold(0, 2, 1)[0])
for f in (lambda: x.unfold(0, 11, 1), lambda: x.unfold(0, 3, 0), lambda: torch.tensor(1.).unfold(0, 1, 1),
          lambda: torch.tensor(1.).unfold(0, 2, 1)):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
w = torch.arange(6., requires_grad=True)
u = w.unfold(0, 3, 1)
print(u.detach())
u.sum().backward()
print(w.grad)
v = torch.zeros(6)
v.unfold(0, 2, 2)[:, 0] = 5
print(v)
z = torch.arange(24.).reshape(2, 3, 4)
print(z.unfold(2, 2, 2).shape, z.unfold(1, 2, 1).reshape(-1).tolist()[:8])
print(torch.logit(torch.tensor([0.2, 0.5, 1.0, 0.])), torch.logit(torch.tensor([0.2, 0.5, 1.0, 0.]), eps=1e-6),
      torch.tensor([-2., 0, 3]).sgn())
print(torch.as_strided(x, (3, 3), (1, 1), 1), torch.empty(2).is_sparse, torch.empty(2).is_quantized,
      torch.empty(2).is_meta)
g = torch.arange(9., requires_grad=True)
s = torch.as_strided(g, (2, 2), (3, 1), 1)
print(s.detach())
s.sum().backward()
print(g.grad)
t = torch.ones(2)
t.resize_as_(torch.ones(3, 1))
print(t.shape)
