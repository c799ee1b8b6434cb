# matrix @ vector is ATen's mv (BLAS gemv on the CPU, whose sums differ
# from a one-column gemm's): values, node and error against python3-torch.
import torch

torch.manual_seed(0)
x = torch.randn(64, 33)
v = torch.rand(64, 33)[0]
print((x @ v)[:3].tolist(), torch.matmul(x, v)[-2:].tolist(), torch.mv(x, v)[5].item())
print((x.t().contiguous().t() @ v)[:2].tolist(), (x[:, ::2] @ v[::2])[:2].tolist())
print((x.double() @ v.double())[:2].tolist())
w = torch.randn(4, 3, requires_grad=True)
u = torch.randn(3, requires_grad=True)
y = w @ u
print(y.grad_fn.name())
y.sum().backward()
print(w.grad.sum().item(), u.grad.tolist())
try:
    torch.randn(64, 33) @ torch.randn(34)
except RuntimeError as e:
    print("RuntimeError:", e)
