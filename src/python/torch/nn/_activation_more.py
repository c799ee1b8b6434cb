"""More activations: F.hardtanh, relu6, hardswish, hardsigmoid, mish,
logsigmoid, softsign, tanhshrink, threshold, glu, softmin, celu, selu,
prelu and their modules (torch/nn/modules/activation.py upstream).

Composed from ops with backward formulas, as functional.py's leaky_relu
and elu are: PyTorch's values and, where its kernel's gradient differs
from the composition's at a boundary, a mask that gives PyTorch's (x > min
strictly, as hardtanh_backward). The nodes are the composition's
(MulBackward0, ...) where PyTorch has one of its own (HardtanhBackward0);
softsign, tanhshrink and softmin are composed in PyTorch too.
"""

import torch
from .functional import _inplace_result, _source, softmax
from .modules import Module
from .parameter import Parameter


def _mask(cond, like):
    return cond.to(like.dtype)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    x = _source(input, inplace)
    if min_val > max_val:
        # min(max(x, min_val), max_val): max_val everywhere, no gradient
        return _inplace_result(input, x * 0 + max_val, inplace)
    inside = _mask((x > min_val) & (x < max_val), x)
    below = _mask(x <= min_val, x)
    above = _mask(x >= max_val, x)
    # x where inside (the gradient's support); the bounds elsewhere
    return _inplace_result(input, inside * x + below * min_val + above * max_val, inplace)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def hardswish(input, inplace=False):
    # x * min(max(x + 3, 0), 6) / 6 in PyTorch's order (-0.0 below -3);
    # gradient x / 3 + 0.5 on [-3, 3), 1 from 3 on, as PyTorch's kernel
    x = _source(input, inplace)
    mid = _mask((x >= -3) & (x < 3), x)
    hi = _mask(x >= 3, x)
    out = x * (mid * (x + 3) + hi * 6) / 6
    return _inplace_result(input, out, inplace)


def hardsigmoid(input, inplace=False):
    # min(max(x + 3, 0), 6) / 6; gradient 1 / 6 strictly inside (-3, 3)
    x = _source(input, inplace)
    mid = _mask((x > -3) & (x < 3), x)
    hi = _mask(x >= 3, x)
    out = mid * ((x + 3) / 6) + hi
    return _inplace_result(input, out, inplace)


def mish(input, inplace=False):
    x = _source(input, inplace)
    from .functional import softplus
    return _inplace_result(input, x * softplus(x).tanh(), inplace)


def logsigmoid(input):
    # min(x, 0) - log1p(exp(-|x|)), PyTorch's stable form
    return torch.minimum(input, torch.zeros_like(input)) - torch.log1p((-input.abs()).exp())


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def threshold(input, threshold, value, inplace=False):
    x = _source(input, inplace)
    keep = _mask(x > threshold, x)
    return _inplace_result(input, keep * x + (1 - keep) * value, inplace)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim if dim >= 0 else dim + input.dim()
    if input.shape[d] % 2 != 0:
        raise RuntimeError("Halving dimension must be even, but dimension {} is size {}".format(d, input.shape[d]))
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, _stacklevel + 1, dtype)


def _elu_like(input, alpha, scale, input_scale, inplace):
    # PyTorch's elu kernel: x > 0: x * scale; else (exp(x * input_scale) - 1) * alpha * scale
    x = _source(input, inplace)
    neg = _mask(x <= 0, x)
    out = (1 - neg) * (x * scale if scale != 1 else x) + \
        neg * (((x * neg) * input_scale if input_scale != 1 else x * neg).exp() - 1) * (alpha * scale)
    return _inplace_result(input, out, inplace)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _elu_like(input, alpha, 1.0, 1.0 / alpha, inplace)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    return _elu_like(input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace)


def prelu(input, weight):
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if weight.numel() != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = {} "
                               "and channel size = {}.".format(weight.numel(), channels))
        w = weight.reshape((1, channels) + (1,) * (input.dim() - 2)) if input.dim() >= 2 else weight
    else:
        w = weight.reshape(())
    pos = _mask(input > 0, input)
    return pos * input + (1 - pos) * (w * input)


# -- Modules -----------------------------------------------------------------

class _Stateless(Module):
    _function = None

    def forward(self, input):
        return type(self)._function(input)


class _Inplace(Module):
    _function = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._function(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val

    def forward(self, input):
        return hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return "min_val={}, max_val={}{}".format(self.min_val, self.max_val, inplace_str)


class ReLU6(Hardtanh):
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Hardswish(_Inplace):
    _function = staticmethod(hardswish)

    def extra_repr(self):
        return ""


class Hardsigmoid(_Inplace):
    _function = staticmethod(hardsigmoid)

    def extra_repr(self):
        return ""


class Mish(_Inplace):
    _function = staticmethod(mish)

    def extra_repr(self):
        return ""


class LogSigmoid(_Stateless):
    _function = staticmethod(logsigmoid)


class Softsign(_Stateless):
    _function = staticmethod(softsign)


class Tanhshrink(_Stateless):
    _function = staticmethod(tanhshrink)


class SELU(_Inplace):
    _function = staticmethod(selu)


class CELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return "alpha={}{}".format(self.alpha, inplace_str)


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return "threshold={}, value={}{}".format(self.threshold, self.value, inplace_str)


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return glu(input, self.dim)

    def extra_repr(self):
        return "dim={}".format(self.dim)


class Softmin(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim={dim}".format(dim=self.dim)


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(torch.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        with torch.no_grad():
            self.weight.fill_(self.init)

    def forward(self, input):
        return prelu(input, self.weight)

    def extra_repr(self):
        return "num_parameters={}".format(self.num_parameters)
