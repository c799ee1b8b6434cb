# Binary ops with one operand broadcast along the run (columns, outer
# products), both orders, float32 and float64, in place, and in place over
# the broadcast number itself (each element reads it again, as PyTorch's):
# digests against python3-torch.
import torch, hashlib
g = torch.Generator().manual_seed(4)
h = lambda t: hashlib.md5(t.contiguous().numpy().tobytes()).hexdigest()[:10]
for dt in (torch.float32, torch.float64):
    a = torch.randn(37, 53, generator=g).to(dt); c = torch.randn(37, 1, generator=g).to(dt); r = torch.randn(53, generator=g).to(dt)
    print(dt, [h(f()) for f in (lambda: a + c, lambda: c + a, lambda: a - c, lambda: c - a, lambda: a * c, lambda: a / c, lambda: c / a,
                                  lambda: c * r, lambda: torch.outer(c[:, 0], r), lambda: r - c, lambda: a + r, lambda: a.clone().div_(c),
                                  lambda: a.clone().sub_(c), lambda: torch.maximum(a, c))])
x = torch.arange(12.).reshape(3, 4)
print(x.clone().sub_(x.clone()[:, :1]), x.sub_(x[:, :1]))
z = torch.arange(12.).reshape(3, 4); print(z.div_(z[:, 1:2] + 1))
