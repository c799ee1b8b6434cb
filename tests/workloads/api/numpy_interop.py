# NumPy and CPU tensors sharing memory: from_numpy, Tensor.numpy(),
# np.asarray(tensor), as_tensor of an array; torch.tensor copies. The
# expected output is what Debian's python3-torch 1.13 prints for this script
# (`python3 numpy_interop.py`); the CUDA message is PyTorch's too (a CPU
# build prints it for no tensor, so it was taken from PyTorch's source).
import warnings

import numpy as np

import torch


def check(fn):
    try:
        r = fn()
    except Exception as err:
        print(type(err).__name__ + ":", err)
    else:
        print("ok", repr(r))


a = np.arange(6, dtype=np.float32).reshape(2, 3)
t = torch.from_numpy(a)
print(t, t.dtype, t.shape, t.stride())
a[0, 0] = 100
t[1, 2] = -1
print("shared", t[0, 0].item(), a[1, 2])
t.add_(1)
print(a)
for dt in (np.float64, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_):
    x = torch.from_numpy(np.ones(2, dtype=dt))
    print(x.dtype, x.tolist())
print(torch.from_numpy(np.arange(8.0)[::2]).stride(), torch.from_numpy(np.zeros((2, 3)).T).stride())
print(torch.from_numpy(np.array(2.5)))
del a
print("the tensor keeps the array alive", t.sum().item())

c = torch.arange(6).reshape(2, 3)
n = c.numpy()
print(n, n.dtype, n.strides)
n[0, 1] = 42
print("shared", c[0, 1].item())
c.mul_(2)
print(n)
print(c.t().numpy(), c[:, 1].numpy().strides, c.t().numpy().flags["C_CONTIGUOUS"])
print(torch.ones(3).numpy().dtype, torch.ones(2, dtype=torch.float16).numpy().dtype,
      torch.tensor([True, False]).numpy())
h = np.asarray(c)
h[1, 1] = -7
print("asarray shares", c[1, 1].item(), np.asarray(torch.ones(2), dtype=np.int32))
print(np.asarray(torch.ones(4)).sum(), np.array(torch.tensor(3.5)))

arr = np.arange(3.0)
s = torch.as_tensor(arr)
arr[0] = 9
print("as_tensor shares", s[0].item(), torch.as_tensor(arr, dtype=torch.float32))
cp = torch.tensor(arr)
arr[1] = 8
print("tensor copies", cp.tolist(), torch.tensor(arr[::2]).tolist(), torch.tensor([np.float32(1.5), np.int64(2)]))
check(lambda: torch.tensor(arr[::-1]))
print("ufuncs give tensors", np.exp(torch.ones(2)), np.sqrt(torch.tensor([4.0, 9.0])), np.isfinite(torch.ones(2)))
print("mixed arithmetic", np.float64(2.0) * torch.ones(2), torch.ones(2) + np.ones(2))
print("NumPy scalars keep their dtype", torch.tensor([np.int32(1), np.int32(2)]).dtype,
      torch.tensor([np.float64(1.5)]).dtype, torch.tensor(np.float32(2.5)).dtype,
      torch.tensor([np.float16(1), np.int8(2)]).dtype, torch.as_tensor([np.float32(1)]).dtype)
from torch.utils.data import default_collate  # noqa: E402
print("collate", default_collate([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)]),
      default_collate([np.float32(1), np.float32(2)]), default_collate([(np.ones(2), 1), (np.zeros(2), 2)]))
print("legacy constructors copy", torch.Tensor(np.array([1, 2])), torch.FloatTensor(np.array([1.5])))

check(lambda: torch.from_numpy([1, 2]))
check(lambda: torch.from_numpy(np.float64(1.0)))
check(lambda: torch.from_numpy(np.ones(2, dtype=np.uint16)))
check(lambda: torch.from_numpy(np.ones(2, dtype=">f4")))
check(lambda: torch.from_numpy(np.arange(4.0)[::-1]))
check(lambda: torch.ones(2, requires_grad=True).numpy())
check(lambda: np.asarray(torch.ones(2, requires_grad=True)))
check(lambda: torch.ones(2, requires_grad=True).numpy(force=True))
check(lambda: torch.ones(2, dtype=torch.bfloat16).numpy())
check(lambda: torch.ones(2).numpy(True))
ro = np.arange(3.0)
ro.flags.writeable = False
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    check(lambda: torch.from_numpy(ro))
    print([str(x.message).split(" (Triggered")[0] for x in w])

if torch.cuda.is_available():
    g = torch.ones(2, device="cuda")
    check(lambda: g.numpy())
    check(lambda: np.asarray(g))
    check(lambda: g.numpy(force=True))
    print(torch.as_tensor(np.arange(3), device="cuda"), torch.tensor(np.ones(2), device="cuda:1"))

# the idiom for a parameter: detach() (or .data) shares the memory and
# requires no grad
p = torch.nn.Parameter(torch.ones(2))
d = p.detach()
print(type(d).__name__, d.requires_grad, p.requires_grad, d.data_ptr() == p.data_ptr(), p.detach().numpy(),
      type(p.data).__name__, p.data.requires_grad)
d.add_(1)
print("detached shares", p.tolist())
r = torch.ones(2, requires_grad=True)
print(r.detach_() is r, r.requires_grad)
