# gather through the dense fast path and the host bound check: dtypes,
# dims, transposed self, strided index, errors and the gradient, against
# python3-torch.
import torch, hashlib
g = torch.Generator().manual_seed(8)
h = lambda t: hashlib.md5(t.contiguous().numpy().tobytes()).hexdigest()[:10]
for dt in (torch.float32, torch.float64, torch.int64, torch.float16):
    a = torch.randn(30, 40, generator=g).to(dt)
    for dim in (0, 1, -1):
        idx = torch.randint(0, 30 if dim == 0 else 40, (12, 17), generator=g)
        print(dt, dim, h(a.gather(dim, idx)), h(a.t().gather(1 - dim % 2, idx % 30)), h(a.gather(dim, idx.t().contiguous().t()[:12, :17])), h(torch.gather(a[::2], dim, idx % 15)))
try: torch.zeros(3, 3).gather(1, torch.tensor([[3]]))
except Exception as e: print(type(e).__name__, e)
x = torch.randn(4, 5, requires_grad=True); x.gather(1, torch.tensor([[0, 0], [1, 4], [2, 2], [3, 1]])).sum().backward(); print(x.grad)
