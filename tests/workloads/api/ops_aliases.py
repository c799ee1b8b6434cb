# PyTorch's other names for ops (absolute, arccos, arctan2, divide,
# multiply, subtract, greater, less_equal, not_equal, negative, fix, ...),
# positive, ravel, narrow_copy, fmax/fmin, frexp, byte/cfloat, is_cpu,
# is_signed, is_same_size and in-place forms (#14). The expected output
# is what Debian's python3-torch 1.13 prints for this script.
import torch
x = torch.tensor([-1.5, 0.5, 2.0, float("nan")])
y = torch.tensor([1.0, float("nan"), -3.0, float("nan")])
print(torch.absolute(x), x.arccos(), torch.arctan2(x, y), x.divide(2), torch.multiply(x, 2), x.subtract(y, alpha=2))
print(torch.greater(x, 0), x.less_equal(0.5), torch.not_equal(x, 0.5), torch.negative(x), torch.positive(x) is x, torch.fix(x))
print(torch.fmax(x, y), torch.fmin(x, y), x.ravel().shape, torch.ones(2, 3).t().ravel().is_contiguous())
m, e = torch.frexp(torch.tensor([8.0, 0.3, -5.0, 0.0]))
print(m, e, e.dtype)
print(torch.arange(5).narrow_copy(0, 1, 2), torch.ones(2).byte().dtype, torch.ones(2).cfloat().dtype, torch.ones(2).is_cpu, x.is_signed(), torch.ones(2, dtype=torch.uint8).is_signed())
z = torch.tensor([90.0, 180.0]); z.deg2rad_(); print(z)
w = torch.tensor([1.0, 2.0]); w.absolute_(); w.multiply_(3); print(w, w.is_same_size(torch.zeros(2)))
try: torch.positive(torch.ones(1, dtype=torch.bool))
except Exception as e: print(type(e).__name__, e)
