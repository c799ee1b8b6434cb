# torch.pow / ** / pow_ with a number exponent as ATen computes it: the special
# forms (0, 1, 0.5, -0.5, -1, 2, 3, -2), SLEEF's pow in the dense vector
# half and pow (x, double) in the tail, float32 and float64, strided runs,
# edge values; element bytes' digests against python3-torch.
import torch, hashlib
torch.manual_seed(0)
a = torch.randn(1000).abs() + 0.1
b = torch.randn(1000)
big = torch.randn(64, 33)
def h(t): return hashlib.md5(t.contiguous().numpy().tobytes()).hexdigest()[:10]
for e in (2, 3, -2, 2.5, 0.5, -0.5, -1, 0.3, 1, 0, 4, 1.0, 2.0, -3, 7, True):
    out = []
    for x in (a, b, a.double(), b.double(), big[:, ::2], a[:13]):
        out.append(h(x ** e))
    out.append(h(torch.pow(a, e)))
    y = a.clone(); y.pow_(e); out.append(h(y))
    print(e, out)
print(h(torch.tensor([0., -0., float('inf'), float('-inf'), float('nan'), -1.]) ** 0.5), (torch.tensor([0., -0., float('inf'), float('-inf'), float('nan'), -1.]) ** 0.5).tolist(), (torch.tensor([0., -0., float('inf'), float('-inf'), -2.]) ** -0.5).tolist(), (torch.tensor([0., -0., float('nan')]) ** 0).tolist())
