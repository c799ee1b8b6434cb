# torch.set_default_dtype: the factories and tensor() of Python floats
# follow it. The expected output is what Debian's python3-torch 1.13 prints
# for this script (`python3 default_dtype.py`), but for float16 as the
# default: PyTorch allows it, Tensorscope says it does not model it (its
# own text, the last line).
import torch
from checks import check


print(torch.get_default_dtype())
torch.set_default_dtype(torch.float64)
print(torch.get_default_dtype(), torch.ones(2).dtype, torch.zeros(1).dtype, torch.empty(1).dtype,
      torch.tensor([1.5]).dtype, torch.tensor(2.0).dtype, torch.arange(3.).dtype,
      torch.full((2,), 1.5).dtype, torch.randn(2).dtype, torch.rand(2).dtype, torch.Tensor(2).dtype,
      torch.as_tensor([1.0]).dtype)
print("ints stay int64", torch.tensor([1, 2]).dtype, torch.arange(3).dtype, torch.full((1,), 7).dtype)
print(torch.tensor([0.5, 1.5]))
print(torch.tensor([0.5, 1.5], dtype=torch.float32))
torch.set_default_dtype(torch.float32)
print(torch.get_default_dtype(), torch.ones(1).dtype)
print(torch.tensor([0.5, 1.5], dtype=torch.float64))
check(lambda: torch.set_default_dtype(torch.int64))
check(lambda: torch.set_default_dtype("float64"))
print(torch.get_default_dtype())
check(lambda: torch.set_default_dtype(torch.float16))
