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
