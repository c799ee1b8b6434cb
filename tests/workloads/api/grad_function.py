# torch.autograd.Function (#15): a custom node named after its class,
# ctx.save_for_backward / saved_tensors, needs_input_grad, mark_dirty,
# mark_non_differentiable, set_materialize_grads, once_differentiable, and PyTorch's checks of what backward returns. The
# expected output is what Debian's python3-torch 1.13 prints.
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable

DEV = "cuda" if torch.cuda.is_available() else "cpu"


class MyExp(Function):
    @staticmethod
    def forward(ctx, x, k):
        y = x.exp() * k
        ctx.save_for_backward(y)
        ctx.k = k
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        print("needs", ctx.needs_input_grad)
        return g * y, None


class AddOne_(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.add_(1)

    @staticmethod
    def backward(ctx, g):
        return g * 2


class SortWithIndex(Function):
    @staticmethod
    def forward(ctx, x):
        v, i = x.sort()
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        ctx.set_materialize_grads(False)
        return v, i

    @staticmethod
    def backward(ctx, gv, gi):
        i, = ctx.saved_tensors
        print("gi", gi)
        return torch.zeros_like(gv).scatter(0, i, gv)


class Twice(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("grads", g1.cpu(), g2.cpu())
        return g1 * 2 + g2 * 3


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2


class Bad(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, g):
        return g


class Bad2(Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g, g


class Bad3(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g[:1]


class Id(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 3


class NoBack(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2


for dev in ("cpu", DEV):
    x = torch.tensor([0.0, 1.0], device=dev, requires_grad=True)
    y = MyExp.apply(x, 2.0)
    print(y.grad_fn.name(), len(y.grad_fn.next_functions), y.requires_grad)
    y.sum().backward()
    print([round(v, 4) for v in x.grad.tolist()])
    try:
        y.sum().backward()
    except RuntimeError as e:
        print(e)
    print(MyExp.apply(torch.ones(2, device=dev), 1.0).requires_grad)
    with torch.no_grad():
        print(MyExp.apply(x, 1.0).requires_grad)

    h = x * 1
    h2 = AddOne_.apply(h)
    print(h2 is h, h.grad_fn.name(), h.tolist())
    x.grad = None
    h.sum().backward()
    print(x.grad.tolist())
    try:
        AddOne_.apply(x)
    except RuntimeError as e:
        print(e)

    s = torch.tensor([3.0, 1.0, 2.0], device=dev, requires_grad=True)
    v, i = SortWithIndex.apply(s)
    print(v.grad_fn.name(), i.requires_grad, i.grad_fn)
    (v * torch.tensor([1.0, 10.0, 100.0], device=dev)).sum().backward()
    print(s.grad.tolist())

    t1, t2 = Twice.apply(x)
    t1.sum().backward()

    c = torch.tensor([1.0, 2.0], device=dev, requires_grad=True)
    Cube.apply(c).sum().backward()
    print(c.grad.tolist())

    z = Id.apply(x)
    print(z is x, z.grad_fn.name())
    x.grad = None
    z.sum().backward()
    print(x.grad.tolist())

    for f in (lambda: Bad.apply(x, x), lambda: Bad2.apply(x, 2), lambda: Bad3.apply(x), lambda: NoBack.apply(x)):
        try:
            f().sum().backward()
        except (RuntimeError, NotImplementedError) as e:
            print(type(e).__name__, e)
    try:
        Function.apply(x)
    except NotImplementedError as e:
        print(e)

# a saved output does not keep itself alive through its grad_fn
if torch.cuda.is_available():
    x = torch.ones(256, 256, device="cuda", requires_grad=True)
    y = MyExp.apply(x, 1.0)
    del y
    base = torch.cuda.memory_allocated()
    for _ in range(3):
        y = MyExp.apply(x, 1.0)
        del y
    print(torch.cuda.memory_allocated() - base)
else:
    print(0)
