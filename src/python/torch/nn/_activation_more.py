"""More activations: F.hardtanh, relu6, hardswish, hardsigmoid, mish,
logsigmoid, threshold, elu, celu, selu, prelu, glu, hardshrink,
softshrink (aten:: rows of the
op table, the ACT family of ts-ops-act.c, with PyTorch's nodes:
HardtanhBackward0, ...), softsign, tanhshrink, softmin (composed, as
PyTorch composes them), and their modules
(torch/nn/modules/activation.py upstream).

An in-place form (inplace=True) computes out of place and copies back
(CopyBackwards, where PyTorch's hardtanh_ is HardtanhBackward1).
"""

import torch
from torch.amp.autocast_mode import autocast_policy
from .functional import _inplace_result, _source, softmax
from .modules import Module, _InplaceActivation, _ParamActivation
from .parameter import Parameter

_C = torch._C


def _act(name, input, p0=0.0, p1=0.0, flag=False, inplace=False):
    x = _source(input, inplace)
    return _inplace_result(input, _C._activation(name, x, float(p0), float(p1), bool(flag)), inplace)


def _is_float(t):
    return t.dtype.is_floating_point


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if not _is_float(input):
        # clamp's integer form, the bounds cast to the tensor's type
        lo, hi = int(min_val), int(max_val)
        return _inplace_result(input, input.clamp(lo, hi) if lo <= hi else input * 0 + hi, inplace)
    return _act("hardtanh", input, min_val, max_val, inplace=inplace)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def hardswish(input, inplace=False):
    return _act("hardswish", input, inplace=inplace)


def hardsigmoid(input, inplace=False):
    return _act("hardsigmoid", input, inplace=inplace)


def mish(input, inplace=False):
    return _act("mish", input, inplace=inplace)


def logsigmoid(input):
    return _act("log_sigmoid", input)


def hardshrink(input, lambd=0.5):
    return _act("hardshrink", input, lambd)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        # C++ prints the double with %g
        raise RuntimeError("lambda must be greater or equal to 0, but found to be {:g}.".format(lambd))
    return _act("softshrink", input, lambd)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def threshold(input, threshold, value, inplace=False):
    if not _is_float(input):
        x = _source(input, inplace)
        keep = (x > threshold).to(x.dtype)
        return _inplace_result(input, keep * x + (1 - keep) * value, inplace)
    return _act("threshold", input, threshold, value, inplace=inplace)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim if dim >= 0 else dim + input.dim()
    if input.shape[d] % 2 != 0:
        raise RuntimeError("Halving dimension must be even, but dimension {} is size {}".format(d, input.shape[d]))
    return _C._glu(input, d)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, _stacklevel + 1, dtype)


def elu(input, alpha=1.0, inplace=False):
    return _act("elu", input, alpha, 1.0, inplace=inplace)


def celu(input, alpha=1.0, inplace=False):
    # elu's kernel with input_scale 1 / alpha, under celu's name and node
    return _act("celu", input, alpha, 1.0, True, inplace=inplace)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    return _act("elu", input, _SELU_ALPHA, _SELU_SCALE, inplace=inplace)


@autocast_policy(cuda="lower", cpu="lower")
def prelu(input, weight):
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if weight.numel() != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = {} "
                               "and channel size = {}.".format(weight.numel(), channels))
    return _C._prelu(input, weight)


# -- Modules -----------------------------------------------------------------

class _Stateless(Module):
    _function = None

    def forward(self, input):
        return type(self)._function(input)


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


class _ReprlessInplaceActivation(_InplaceActivation):
    """Hardswish, Hardsigmoid and Mish: their repr leaves inplace out, as
    PyTorch's does."""

    def extra_repr(self):
        return ""


class Hardswish(_ReprlessInplaceActivation):
    _function = staticmethod(hardswish)


class Hardsigmoid(_ReprlessInplaceActivation):
    _function = staticmethod(hardsigmoid)


class Mish(_ReprlessInplaceActivation):
    _function = staticmethod(mish)


class LogSigmoid(_Stateless):
    _function = staticmethod(logsigmoid)


class _Shrink(Module):
    _function = None

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._function(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(_Shrink):
    _function = staticmethod(hardshrink)


class Softshrink(_Shrink):
    _function = staticmethod(softshrink)


class Softmax2d(Module):
    def forward(self, input):
        assert input.dim() == 4 or input.dim() == 3, "Softmax2d requires a 3D or 4D tensor as input"
        return softmax(input, -3, _stacklevel=5)


class Softsign(_Stateless):
    _function = staticmethod(softsign)


class Tanhshrink(_Stateless):
    _function = staticmethod(tanhshrink)


class SELU(_InplaceActivation):
    _function = staticmethod(selu)


class CELU(_ParamActivation):
    _function = staticmethod(celu)
    _param = "alpha"

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha, inplace)


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
