# logcumsumexp (accumulated in double, with its infinite and NaN cases) and
# index_reduce / index_reduce_ (prod, mean, amax, amin, include_self)
# (#14). The expected output is what Debian's python3-torch 1.13 prints.
import torch, warnings
warnings.simplefilter("ignore")
x = torch.tensor([[0.5, -1.0, 3.0, float("-inf")], [2.0, float("inf"), 1.0, float("nan")]])
print(torch.logcumsumexp(x, 1), x.logcumsumexp(0), torch.logcumsumexp(torch.randn(3, 5, dtype=torch.float64).abs(), -1).shape)
a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
src = torch.tensor([[10.0, 20.0], [30.0, 40.0], [2.0, 0.5]])
idx = torch.tensor([0, 2, 0])
for red in ("prod", "mean", "amax", "amin"):
    for inc in (True, False):
        print(red, inc, a.index_reduce(0, idx, src, red, include_self=inc).tolist())
print(a.clone().index_reduce_(1, torch.tensor([1, 1]), src[:, :2] * 0 + 2, "prod").tolist())
try: a.index_reduce(0, idx, src, "sum")
except Exception as e: print(type(e).__name__, e)
