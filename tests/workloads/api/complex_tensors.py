# Complex tensors (#14): dtypes and promotion, creation, printing, the
# .real/.imag views, arithmetic, reductions, casts, NumPy sharing and the
# errors of ops that do not take complex numbers. The expected output is
# what Debian's python3-torch 1.13 prints for this script.
import numpy as np
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])


print(torch.cfloat, torch.cdouble, torch.complex64.is_complex, torch.float32.is_complex,
      torch.complex64.is_floating_point)
for a, b in [(torch.float32, torch.complex64), (torch.float64, torch.complex64), (torch.int64, torch.complex64),
             (torch.float16, torch.complex64), (torch.complex64, torch.complex128), (torch.bool, torch.complex128)]:
    print("promote", a, b, torch.promote_types(a, b))

x = torch.tensor([1 + 2j, -3.5 - 1e-4j, 100 + 0j]).to(dev)
print(x.cpu(), x.dtype)
print(torch.tensor([[1 + 2j, -3.5], [1e10j, 0]], dtype=torch.cdouble))
print(torch.tensor(1 + 2j), torch.tensor([1, 2.5, 1j]))
print(torch.zeros(2, dtype=torch.cfloat), torch.ones(2, dtype=torch.complex128))
print(torch.full((2,), 1 + 2j), torch.full((2,), 2.5, dtype=torch.cfloat))
print(torch.empty(0, dtype=torch.cfloat), torch.randn(3, 2, dtype=torch.cfloat).shape)

f = torch.tensor([1.0, 2.0]).to(dev)
d = torch.tensor([1.0, 2.0], dtype=torch.float64).to(dev)
i = torch.tensor([1, 2]).to(dev)
c = torch.tensor([1 + 1j, 2 - 1j]).to(dev)
print("mixed", (f + c).dtype, (d + c).dtype, (i * c).dtype, (f * 1j).dtype, (d * 1j).dtype, (i + 2j).dtype,
      (c + torch.tensor(1.0, dtype=torch.float64)).dtype)
print("ops", (c + c).cpu(), (c - f).cpu(), (c * c).cpu(), (c / (1 - 2j)).cpu(), (2 * c).cpu(), (-c).cpu())
print("math", c.exp().cpu(), c.abs().cpu(), c.angle().cpu(), c.conj().cpu(), c.sqrt().cpu(), c.log().cpu())
print("real angle", torch.tensor([-1.0, 2.0]).angle(), torch.tensor([3, -4]).angle())
print("sum", c.sum().cpu(), c.mean().cpu(), torch.ones(2, 3, dtype=torch.cfloat).sum(0).cpu(), c.sum().item())
print("item", c[0].item(), c.tolist(), complex(c[1]))

r = c.real
r[0] = 10
c.imag.mul_(2)
print("views", c.cpu(), r.cpu(), c.imag.cpu(), c.real.stride(), c.imag.stride())
v = torch.view_as_real(c)
v[1, 1] = 7
print("view_as_real", v.shape, v.stride(), c.cpu())
print("view_as_complex", torch.view_as_complex(torch.arange(6.0).reshape(3, 2)))
print("complex", torch.complex(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))
print("polar", torch.polar(torch.tensor([2.0]), torch.tensor([0.5])))
print("to", c.to(torch.complex128).cpu(), torch.tensor([1.5, -2.0]).to(torch.cfloat))
print("is_complex", torch.is_complex(c), c.is_complex(), f.is_complex())

a = np.array([1 + 2j, 3 - 4j], dtype=np.complex64)
t = torch.from_numpy(a)
t[0] = 5j
print("numpy", a, t.dtype, torch.ones(2, dtype=torch.cdouble).numpy().dtype)

err(lambda: torch.view_as_real(torch.ones(2)))
err(lambda: torch.view_as_complex(torch.ones(2, 3)))
err(lambda: torch.view_as_complex(torch.ones(2, 2, dtype=torch.int64)))
err(lambda: torch.view_as_complex(torch.ones(3, 4)[:, 1:3]))
err(lambda: torch.ones(2).imag)
err(lambda: torch.complex(torch.ones(2), torch.ones(2, dtype=torch.float64)))
err(lambda: torch.complex(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64)))
err(lambda: torch.ones(2).fill_(1j))
err(lambda: c < 1)
err(lambda: c.floor())
err(lambda: c.max())
err(lambda: torch.maximum(c, c))
err(lambda: c.sign())
err(lambda: torch.remainder(c, c))
