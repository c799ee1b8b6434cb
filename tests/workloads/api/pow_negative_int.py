# Integer tensors to negative integer powers: ATen's pow (Tensor, Scalar)
# refuses a negative int exponent (we computed 0), where a tensor exponent,
# a float exponent or a number base computes. Expected: python3-torch.
import torch
def s(f):
    try: print(f())
    except Exception as e: print(type(e).__name__, e)
s(lambda: torch.tensor([2]) ** -1)
s(lambda: torch.pow(torch.tensor([2]), torch.tensor([-1])))
s(lambda: torch.tensor([2]).pow_(-2))
s(lambda: torch.pow(torch.tensor([2]), -1.0))
s(lambda: torch.tensor([2], dtype=torch.uint8) ** -1)
s(lambda: 2 ** torch.tensor([-1]))
s(lambda: torch.pow(-1, torch.tensor([-1, 2])))
s(lambda: torch.tensor([True]) ** -1)
s(lambda: torch.tensor([1, -1, 0]) ** torch.tensor([-1, -1, -1]))
s(lambda: torch.tensor([2]) ** torch.tensor(-1))
s(lambda: torch.pow(torch.tensor([3]), 2))
s(lambda: torch.tensor([2]) ** 0)
s(lambda: torch.tensor([2]).pow(-1, out=None) if False else torch.pow(torch.tensor([2]), -3, out=torch.empty(1, dtype=torch.int64)))
