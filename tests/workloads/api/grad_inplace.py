# In-place ops whose formula reads self (mul_, div_, sin_, cumprod_, and
# mul_ into a view) save self as it was, as PyTorch saves self.clone():
# the other operand's gradient is right (#15). The expected output is
# what Debian's python3-torch 1.13 prints for this script.
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
a = x * 1
a.mul_(b)
a.sum().backward()
print(x.grad, b.grad)
x.grad = None
a = x * 1
a.div_(b)
a.sum().backward()
print(x.grad, b.grad)
x.grad = None
a = x * 1
a.sin_()
a.sum().backward()
print(x.grad)
x.grad = None
a = x * 1
a.cumprod_(0)
a.sum().backward()
print(x.grad)
h = x * 1
h[0].mul_(b[0])
h.sum().backward()
print(b.grad)
