# torch.linalg.matrix_norm/norm and torch.norm with the nuclear and spectral
# norms ('nuc', 2, -2): over any two dims, keepdim, dtype, the errors, and
# their gradients, against python3-torch.
import torch
def s(f):
    try: print(f())
    except Exception as e: print(type(e).__name__, str(e)[:200])
A = torch.tensor([[1., 2., 0.], [3., 4., 1.]])
B = torch.arange(24.).reshape(2, 3, 4) / 7
for o in ("nuc", 2, -2):
    s(lambda: torch.linalg.matrix_norm(A, o))
    s(lambda: torch.linalg.matrix_norm(B, o))
    s(lambda: torch.linalg.matrix_norm(B, o, dim=(0, 2), keepdim=True))
    s(lambda: torch.linalg.matrix_norm(B, o, dim=(2, 0)))
    s(lambda: torch.linalg.norm(A, o))
    s(lambda: torch.linalg.matrix_norm(A.double(), o, dtype=torch.float64))
    s(lambda: torch.linalg.matrix_norm(B, o, dim=(1, 1)))
s(lambda: torch.norm(A, p="nuc"))
s(lambda: torch.norm(B, p="nuc", dim=(1, 2)))
s(lambda: torch.norm(B, p="nuc"))
s(lambda: torch.norm(torch.ones(3), p="nuc"))
s(lambda: A.norm(p="nuc", keepdim=True))
x = A.clone().requires_grad_(); y = torch.linalg.matrix_norm(x, "nuc"); y.backward(); print(y.grad_fn.name(), x.grad)
x = A.clone().requires_grad_(); y = torch.linalg.matrix_norm(x, 2); y.backward(); print(y.grad_fn.name(), x.grad)
