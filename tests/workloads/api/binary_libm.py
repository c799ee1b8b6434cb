# atan2, hypot, copysign and nextafter (#14): values, dtypes, gradients and
# node names, in-place forms and the errors for integer and half inputs.
# The expected output is what Debian's python3-torch 1.13 prints.
import torch
a = torch.tensor([1.0, -2.0, 0.0, 3.5, -0.0], requires_grad=True)
b = torch.tensor([2.0, 2.0, -1.0, -0.5, 1.0], requires_grad=True)
for name in ("atan2", "hypot", "copysign"):
    r = getattr(torch, name)(a, b)
    print(name, r, r.grad_fn.name())
    ga, gb = torch.autograd.grad(r.sum(), (a, b))
    print(" grads", ga, gb)
print(torch.nextafter(torch.tensor([1.0, 0.0]), torch.tensor([2.0, -1.0])).tolist())
print(torch.nextafter(torch.tensor([1.0], dtype=torch.float64), torch.tensor([0.0], dtype=torch.float64)).item())
x = torch.tensor([1, 2, 3]); y = torch.tensor([3, 2, 1])
print(torch.atan2(x, y), torch.copysign(x, -1.0) if False else torch.copysign(x, torch.tensor([-1, 1, -1])))
for f in (lambda: torch.hypot(x, y), lambda: torch.nextafter(x, y), lambda: torch.nextafter(torch.ones(1, dtype=torch.float16), torch.zeros(1, dtype=torch.float16))):
    try: print(f())
    except Exception as e: print(type(e).__name__, e)
t = torch.tensor([1.0, 2.0]); t.atan2_(torch.tensor([1.0, -1.0])); print(t)
print(a.atan2(b).dtype, torch.atan2(torch.tensor([1.0], dtype=torch.float64), torch.tensor([1.0])).dtype)
r = torch.nextafter(a, b); print(r.grad_fn.name() if r.grad_fn else None)
try: r.sum().backward()
except Exception as e: print(type(e).__name__, e)
h = torch.hypot(torch.tensor([3.0], device="cuda" if torch.cuda.is_available() else "cpu"), torch.tensor(4.0))
print(h.tolist())
