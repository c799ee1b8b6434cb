import math

from torch import _unmodeled


def uniform_(tensor, a=0.0, b=1.0):
    return tensor.uniform_(a, b)


def normal_(tensor, mean=0.0, std=1.0):
    return tensor.normal_(mean, std)


def zeros_(tensor):
    return tensor.zero_()


def ones_(tensor):
    return tensor.fill_(1)


def constant_(tensor, val):
    return tensor.fill_(val)


def _fan_in(tensor):
    return tensor.shape[1] if tensor.dim() > 1 else tensor.shape[0]


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    gain = math.sqrt(2.0 / (1 + a ** 2))
    bound = math.sqrt(3.0) * gain / math.sqrt(_fan_in(tensor))
    return tensor.uniform_(-bound, bound)

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
