# In-place and out= binary ops whose input shares part of the written
# tensor's memory: refused as TensorIterator's assert_no_partial_overlap
# does (y.add_(y[:1]) computed), while the same tensor, a full view, a
# disjoint slice or a strided view pass. Against python3-torch.
import torch
def s(name, f):
    try: r = f(); print(name, r)
    except Exception as e: print(name, type(e).__name__, e)
x = torch.arange(12.).reshape(3, 4)
s("col", lambda: x.clone().sub_(x.clone()[:, :1]))
y = torch.arange(6.).reshape(2, 3)
s("row", lambda: y.clone().add_(y[:1]))
z = torch.arange(6.)
s("self", lambda: z.clone().mul_(2))
w = torch.arange(6.); s("same", lambda: w.add_(w))
v = torch.arange(6.); s("view", lambda: v.add_(v.view(2, 3).view(6)))
u = torch.arange(8.); s("shifted", lambda: u[:4].add_(u[2:6]))
t = torch.arange(8.); s("disjoint", lambda: t[:4].add_(t[4:]))
q = torch.arange(6.); s("out", lambda: torch.add(q[:3], q[1:4], out=q[2:5]))
r = torch.arange(6.).reshape(2, 3); s("transposed", lambda: r.add_(r.t().contiguous().t()[:, :3] if False else r))
p = torch.arange(4.); s("flipped", lambda: p.add_(p.flip(0)))
o = torch.arange(6.).reshape(2, 3); s("t_full", lambda: o.t().add_(o.t()))
