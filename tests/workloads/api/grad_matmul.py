# matmul gradients with 1-D operands (#15): vector-matrix, matrix-vector,
# dot, and a batch times a vector; on the CPU and on DEV. The expected
# output is what Debian's python3-torch 1.13 prints for this script.
import torch
DEV = "cuda" if torch.cuda.is_available() else "cpu"
for dev in ("cpu", DEV):
    a = torch.tensor([1.0, 2.0], device=dev, requires_grad=True)
    m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=dev, requires_grad=True)
    v = torch.tensor([1.0, -1.0, 2.0], device=dev, requires_grad=True)
    (a @ m).pow(2).sum().backward()
    (m @ v).pow(2).sum().backward()
    (a @ a).backward()
    x3 = torch.ones(2, 3, 2, device=dev, requires_grad=True)
    (x3 @ a).sum().backward()
    print(a.grad.tolist(), m.grad.tolist(), v.grad.tolist(), x3.grad.tolist())

# node names of batched matmul (UnsafeViewBackward0 over the fold) and bmm

torch.manual_seed(0)
a = torch.randn(2, 3, 4, requires_grad=True); b = torch.randn(4, 5, requires_grad=True)
c = torch.randn(2, 4, 5, requires_grad=True); v = torch.randn(4, requires_grad=True)
for r in (a @ b, a @ c, torch.matmul(a, c), torch.bmm(a, c), a.bmm(c), a @ v, v @ c,
          torch.randn(5, 2, 3, 4, requires_grad=True) @ torch.randn(5, 2, 4, 1)):
    print(r.grad_fn.name(), list(r.shape))
(a @ c).sum().backward()
(a @ b).pow(2).sum().backward()
print([round(x, 4) for x in a.grad.reshape(-1).tolist()[:6]], [round(x, 4) for x in b.grad.reshape(-1).tolist()[:6]])

# matrix-vector (MvBackward0), vector-matrix (SqueezeBackward3 over MmBackward0), dot

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
v = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
u = torch.tensor([0.5, 2.0], requires_grad=True)
for r in (m @ v, u @ m, v @ v, torch.matmul(u, m), m.mv(v) if hasattr(m, "mv") else m @ v):
    print(r.grad_fn.name(), [f[0].name() if f[0] else None for f in r.grad_fn.next_functions], list(r.shape))
(m @ v).pow(2).sum().backward()
(u @ m).pow(2).sum().backward()
(v @ v).backward()
print(m.grad.tolist(), v.grad.tolist(), u.grad.tolist())
g, = torch.autograd.grad((m @ v).pow(2).sum(), m, create_graph=True)
g.sum().backward()
print(v.grad.tolist())
