# scatter_ and scatter_add_ of float32/float64 through the typed loop: both
# dims, strided index, src and self, repeated indices in index order, int
# and error cases, against python3-torch.
import torch, hashlib
g = torch.Generator().manual_seed(6)
h = lambda t: hashlib.md5(t.contiguous().numpy().tobytes()).hexdigest()[:10]
for dt in (torch.float32, torch.float64):
    for dim in (0, 1):
        a = torch.randn(40, 30, generator=g).to(dt); idx = torch.randint(0, 30 if dim == 1 else 40, (20, 25), generator=g)
        src = torch.randn(20, 25, generator=g).to(dt)
        out = [h(a.clone().scatter_(dim, idx, src)), h(a.clone().scatter_add_(dim, idx, src)), h(torch.scatter_add(a, dim, idx, src)),
               h(a.clone().scatter_add_(dim, idx, torch.randn(25, 30, generator=g).to(dt).t()[:20, :25])),
               h(a.t().clone().scatter_add_(dim, idx[:, :25] % 30, src)), h(a.clone().scatter_add_(dim, idx.t().contiguous().t(), src))]
        print(dt, dim, out)
print(torch.zeros(5).scatter_add_(0, torch.tensor([0, 0, 4, 0]), torch.tensor([1e8, 1., -1e8, 1.])))
print(torch.zeros(3, 2).scatter_(0, torch.tensor([[2, 0]]), torch.tensor([[5., 6.]])), torch.zeros(3, dtype=torch.int64).scatter_add_(0, torch.tensor([1, 1]), torch.tensor([2, 3])))
try: torch.zeros(3).scatter_add_(0, torch.tensor([3]), torch.tensor([1.]))
except Exception as e: print(type(e).__name__, e)
