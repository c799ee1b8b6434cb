import math

import torch
from torch import _unmodeled

# PyTorch's initializers write parameters under no_grad: a leaf that
# requires grad may not be written in place otherwise


def _no_grad(fn):
    def wrapper(*args, **kwargs):
        with torch.no_grad():
            return fn(*args, **kwargs)
    wrapper.__name__ = fn.__name__
    return wrapper



@_no_grad
def uniform_(tensor, a=0.0, b=1.0):
    return tensor.uniform_(a, b)


@_no_grad
def normal_(tensor, mean=0.0, std=1.0):
    return tensor.normal_(mean, std)


@_no_grad
def zeros_(tensor):
    return tensor.zero_()


@_no_grad
def ones_(tensor):
    return tensor.fill_(1)


@_no_grad
def constant_(tensor, val):
    return tensor.fill_(val)


def _fan_in(tensor):
    return tensor.shape[1] if tensor.dim() > 1 else tensor.shape[0]


@_no_grad
def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    gain = math.sqrt(2.0 / (1 + a ** 2))
    bound = math.sqrt(3.0) * gain / math.sqrt(_fan_in(tensor))
    return tensor.uniform_(-bound, bound)

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
