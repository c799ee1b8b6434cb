# Autograd's errors, with PyTorch's texts: the expected output is what
# Debian's python3-torch 1.13 prints for this script
# (`python3 autograd_errors.py`), with {{*}} where the version counter's
# message names the tensor's type: torch.cuda.FloatTensor here, on CUDA.
import torch
from checks import check

dev = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)

# a saved tensor modified in place (the version counter)


def modified():
    h = x * 2
    h2 = h * h
    h.add_(1)
    h2.sum().backward()


check(modified)


def modified_exp():
    e = x.exp()
    e.mul_(2)
    e.sum().backward()


check(modified_exp)


# backward through the graph a second time
def twice():
    r = (x * x).sum()
    r.backward()
    r.backward()


check(twice)
x.grad = None


# retain_graph=True allows it
def twice_retained():
    r = (x * x).sum()
    r.backward(retain_graph=True)
    r.backward()
    print(x.grad.tolist())


check(twice_retained)
x.grad = None

# in-place on a leaf that requires grad
check(lambda: x.add_(1))
check(lambda: x.fill_(0))
check(lambda: x.copy_(torch.zeros(3, device=dev)))
# ...is fine under no_grad
with torch.no_grad():
    check(lambda: x.mul_(1))

# requires_grad on integers, on non-leaves
check(lambda: torch.tensor([1, 2], device=dev).requires_grad_())
check(lambda: setattr(torch.tensor([1, 2], device=dev), "requires_grad", True))
check(lambda: (x * 2).requires_grad_(False))
check(lambda: setattr(x * 2, "requires_grad", False))
check(lambda: (x * 2).requires_grad_(True))

# backward of what does not require grad, of a non-scalar without gradient=
check(lambda: torch.ones(2, device=dev).sum().backward())
check(lambda: (x * 2).backward())
check(lambda: (x * 2).backward(torch.ones(2, device=dev)))
check(lambda: (x * 2).sum().backward(inputs=[]))
check(lambda: torch.autograd.backward([(x * 2).sum()], [None, None]))

# hooks and retain_grad need requires_grad
check(lambda: torch.ones(2, device=dev).register_hook(lambda g: g))
check(lambda: torch.ones(2, device=dev).retain_grad())

# autograd.grad: unused inputs, inputs that do not require grad
w = torch.ones(3, device=dev, requires_grad=True)
check(lambda: torch.autograd.grad((x * 2).sum(), [x, w]))
check(lambda: torch.autograd.grad((x * 2).sum(), [torch.ones(3, device=dev)]))
print(torch.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)[1])
check(lambda: torch.autograd.grad((x * 2), [x]))

# .grad assignment checks
check(lambda: setattr(x, "grad", torch.ones(2, device=dev)))
check(lambda: setattr(x, "grad", torch.ones(3, device=dev, dtype=torch.float64)))
check(lambda: setattr(x, "grad", x))
x.grad = torch.ones(3, device=dev)
print(x.grad.tolist())
x.grad = None
print(x.grad)
