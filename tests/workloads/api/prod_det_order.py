# Products in PyTorch's order and dtype (float32 in float32, dense runs in
# vectors of 8 lanes, float64 of 4), det and slogdet from the LU of A^T as
# ATen factors a contiguous matrix (det([[1, 2], [3, 4]]) is -2), their
# gradients, and half products refused on the CPU, against python3-torch.
import torch
g = torch.Generator().manual_seed(3)
torch.set_printoptions(precision=10)
for dt in (torch.float32, torch.float64):
    for n in (1, 5, 15, 16, 17, 31, 32, 33, 40, 64, 100, 257, 1000):
        x = (torch.rand(n, generator=g) * 0.2 + 0.9).to(dt)
        print(dt, n, repr(x.prod().item()), repr(x[::2].prod().item()), repr(x.flip(0).prod().item()))
    m = (torch.rand(6, 50, generator=g) * 0.2 + 0.9).to(dt)
    print(torch.prod(m, 1, dtype=torch.float64)[:2])
    A = torch.tensor([[1., 2.], [3., 4.]], dtype=dt)
    print(torch.det(A), repr(torch.det(A).item()), torch.linalg.det(torch.randn(4, 4, generator=g, dtype=dt)))
    print(torch.tensor([[2., float('nan')], [0., float('inf')]], dtype=dt).prod(1), torch.ones(0, dtype=dt).prod())
x = torch.tensor([1., 2., 3.], requires_grad=True); y = x.prod(); y.backward(); print(x.grad)
print(torch.tensor([2, 3, 4], dtype=torch.int32).prod(), torch.tensor([True, True]).prod())
for dt in (torch.float16, torch.bfloat16):
    try:
        print(torch.tensor([1.5, 2.], dtype=dt).prod(0))
    except RuntimeError as e:
        print(e)
torch.set_printoptions(precision=6)
g = torch.Generator().manual_seed(5)
for dt in (torch.float32, torch.float64):
    A = torch.randn(2, 4, 4, generator=g, dtype=dt).requires_grad_()
    d = torch.linalg.det(A); d.sum().backward(); print(d, A.grad[0, 0])
    A.grad = None; s, l = torch.linalg.slogdet(A); l.sum().backward(); print(s, l, A.grad[1, 1])
    At = A.detach().mT.requires_grad_()
    d = torch.det(At); d.sum().backward(); print(d, At.grad[0, 1])
    print(torch.logdet(A.detach().abs() + torch.eye(4, dtype=dt) * 3))
    print(torch.det(torch.tensor([[1., 2.], [3., 4.]], dtype=dt)), torch.det(torch.tensor([[2., 1.], [1., 3.]], dtype=dt).t()))
