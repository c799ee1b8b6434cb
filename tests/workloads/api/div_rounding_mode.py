# torch.div/Tensor.div/div_/torch.divide with rounding_mode 'trunc' and 'floor'
# (aten::div.Tensor_mode): floats, ints, a number on either side, int8, half,
# broadcasting, out=, division by zero, bool and complex refusals, the mode
# check, and the zero gradient of DivBackward2; //, % and fmod of bools.
# Expected: python3-torch (1.13) running this script.
import torch
def s(f):
    try: print(f())
    except Exception as e: print(type(e).__name__, e)
a = torch.tensor([5., -7., 7.5, -0.5, 0.])
b = torch.tensor([2., 2., -2., 3., -1.])
for mode in ("trunc", "floor"):
    s(lambda: torch.div(a, b, rounding_mode=mode))
    s(lambda: torch.div(a, 2, rounding_mode=mode))
    s(lambda: a.div(-2.5, rounding_mode=mode))
    s(lambda: torch.divide(a, b, rounding_mode=mode))
    s(lambda: torch.div(torch.tensor([7, -7, 9, -9]), torch.tensor([2, 2, -4, -4]), rounding_mode=mode))
    s(lambda: torch.div(torch.tensor([7, -7], dtype=torch.int8), 2, rounding_mode=mode))
    s(lambda: torch.div(torch.tensor([7, -7]), 2.5, rounding_mode=mode))
    s(lambda: torch.div(5, torch.tensor([2, -3]), rounding_mode=mode))
    s(lambda: torch.div(torch.tensor([True]), torch.tensor([True]), rounding_mode=mode))
    s(lambda: torch.div(torch.tensor([1]), 0, rounding_mode=mode))
    s(lambda: torch.div(torch.tensor([1., -1., 0.]), 0, rounding_mode=mode))
    s(lambda: torch.div(torch.tensor([1+1j]), 2, rounding_mode=mode))
    s(lambda: torch.tensor([5]).div_(2, rounding_mode=mode))
    s(lambda: torch.tensor([5]).div_(2.5, rounding_mode=mode))
    s(lambda: torch.tensor([5.]).div_(torch.tensor([2.]), rounding_mode=mode))
    s(lambda: torch.div(torch.tensor([-5.5], dtype=torch.float16), torch.tensor([2.]), rounding_mode=mode))
    s(lambda: torch.div(torch.arange(6.).reshape(2, 3), torch.tensor([1., 2., 4.]), rounding_mode=mode))
    o = torch.empty(5); s(lambda: (torch.div(a, b, rounding_mode=mode, out=o), o))
    s(lambda: torch.div(torch.tensor([5]), 2, rounding_mode=mode, out=torch.empty(1, dtype=torch.int64)))
    s(lambda: torch.div(torch.tensor([5.]), 2, rounding_mode=mode, out=torch.empty(1, dtype=torch.int64)))
    x = torch.tensor([5., -7.], requires_grad=True); y = torch.tensor([2., 3.], requires_grad=True)
    z = torch.div(x, y, rounding_mode=mode); print(z, z.grad_fn.name()); z.sum().backward(); print(x.grad, y.grad)
    z = torch.div(x, 2, rounding_mode=mode); print(z.grad_fn.name())
    z = torch.div(x, y[:1], rounding_mode=mode); z.sum().backward(); print(y.grad)
s(lambda: torch.div(a, b, rounding_mode="round"))
s(lambda: a.div(2, rounding_mode=None))
s(lambda: torch.div(torch.tensor([7]), torch.tensor([2])))
s(lambda: torch.tensor([True]) // torch.tensor([True]))
s(lambda: torch.tensor([True]) % torch.tensor([True]))
s(lambda: torch.fmod(torch.tensor([True]), torch.tensor([True])))
