"""torch._foreach_*: PyTorch's multi-tensor ops.

Each op is its per-tensor ops in PyTorch's order (1.13's CPU slow path,
which loops over the lists calling the single-tensor op), so the values
are the single-tensor ops' to the last bit. On CUDA tensors their kernels
go into multi-tensor launches, one per chunk of the lists as PyTorch's
multi_tensor_apply makes them (_C._multi_tensor_begin; docs/simulation-
model.md). depth is the number of lists the CUDA kernel walks (the outputs
of a functional form included)."""

import torch
from torch import _C


class _multi_tensor:
    """with _multi_tensor(name, depth) as next_tensor: the ops inside are the
    multi-tensor op's (a class, not contextlib: the call site of the launches
    is the user's line, and contextlib's frames are not torch's)"""

    def __init__(self, name, depth):
        self.name, self.depth = name, depth

    def __enter__(self):
        _C._multi_tensor_begin(self.name, self.depth)
        return _C._multi_tensor_next

    def __exit__(self, *exc):
        _C._multi_tensor_end()
        return False


# the ops below open their launches directly (begin, try, finally end: what
# _multi_tensor's with statement does, without its three Python calls)
_next_tensor = _C._multi_tensor_next


def _check_lists(name, *lists):
    n = len(lists[0])
    if n == 0:
        raise RuntimeError("%s: Tensor list must have at least one tensor." % name)
    for other in lists[1:]:
        if len(other) != n:
            raise RuntimeError("%s: Tensor lists must have the same number of tensors, got %d and %d."
                               % (name, n, len(other)))


def _vector_norm(x, p):
    # torch.linalg.vector_norm is not modeled yet: composed from reductions
    if p == 2.0:
        return x.mul(x).sum().sqrt()
    if p == 1.0:
        return x.abs().sum()
    if p == 0.0:
        return (x != 0).sum().to(x.dtype)
    if p == float('inf'):
        return x.abs().max()
    return x.abs().pow(p).sum().pow(1.0 / p)


def _binary(name, fn, inplace):
    """_foreach_<name>(self, other) with other a number, a list of numbers or
    a list of tensors; fn (a, b) is the single-tensor op."""
    def op(self, other, **kwargs):
        self = list(self)
        is_list = isinstance(other, (list, tuple))
        others = list(other) if is_list else [other] * len(self)
        _check_lists(op.__name__, self, others)
        tensors = is_list and isinstance(others[0], torch.Tensor)
        depth = 1 + tensors + (not inplace)
        out = []
        _C._multi_tensor_begin(op.__name__, depth)
        try:
            for s, o in zip(self, others):
                _next_tensor(s)
                out.append(fn(s, o, **kwargs))
        finally:
            _C._multi_tensor_end()
        return None if inplace else out
    op.__name__ = '_foreach_' + name + ('_' if inplace else '')
    return op


def _unary(name, fn, inplace, depth=None):
    def op(self):
        self = list(self)
        _check_lists(op.__name__, self)
        out = []
        _C._multi_tensor_begin(op.__name__, depth or (1 if inplace else 2))
        try:
            for s in self:
                _next_tensor(s)
                out.append(fn(s))
        finally:
            _C._multi_tensor_end()
        return None if inplace else out
    op.__name__ = '_foreach_' + name + ('_' if inplace else '')
    return op


def _pointwise(name, fn, inplace):
    """addcmul/addcdiv: value a number or a list of numbers"""
    def op(self, tensor1, tensor2, value=1):
        self, tensor1, tensor2 = list(self), list(tensor1), list(tensor2)
        values = list(value) if isinstance(value, (list, tuple)) else [value] * len(self)
        _check_lists(op.__name__, self, tensor1, tensor2, values)
        out = []
        _C._multi_tensor_begin(op.__name__, 3 if inplace else 4)
        try:
            for s, a, b, v in zip(self, tensor1, tensor2, values):
                _next_tensor(s)
                out.append(fn(s, a, b, v))
        finally:
            _C._multi_tensor_end()
        return None if inplace else out
    op.__name__ = '_foreach_' + name + ('_' if inplace else '')
    return op


# PyTorch's CPU kernels: self + (value * t1) * t2 and self + (value * t1) / t2
def _addcmul(s, a, b, v):
    return torch.add(s, a.mul(v).mul(b))


def _addcmul_(s, a, b, v):
    return s.add_(a.mul(v).mul(b))


def _addcdiv(s, a, b, v):
    return torch.add(s, a.mul(v).div(b))


def _addcdiv_(s, a, b, v):
    return s.add_(a.mul(v).div(b))


def _lerp(s, end, weight, inplace):
    # PyTorch's lerp: the formula depends on which end the weight is near
    diff = torch.sub(end, s)
    if abs(weight) < 0.5:
        step = diff.mul_(weight)
        return s.add_(step) if inplace else torch.add(s, step)
    step = diff.mul_(1 - weight)
    # end - step, into self (0 + end is end)
    return s.zero_().add_(end).sub_(step) if inplace else torch.sub(end, step)


def _scaled(b, alpha):
    return b if alpha == 1 else b * alpha


def _add(a, b, alpha=1):
    return torch.add(a, b, alpha=alpha) if isinstance(b, torch.Tensor) else torch.add(a, _scaled(b, alpha))


def _add_(a, b, alpha=1):
    return a.add_(b, alpha=alpha) if isinstance(b, torch.Tensor) else a.add_(_scaled(b, alpha))


def _sub(a, b, alpha=1):
    return torch.sub(a, b, alpha=alpha) if isinstance(b, torch.Tensor) else torch.sub(a, _scaled(b, alpha))


def _sub_(a, b, alpha=1):
    return a.sub_(b, alpha=alpha) if isinstance(b, torch.Tensor) else a.sub_(_scaled(b, alpha))


_foreach_add = _binary('add', _add, False)
_foreach_add_ = _binary('add', _add_, True)
_foreach_sub = _binary('sub', _sub, False)
_foreach_sub_ = _binary('sub', _sub_, True)
_foreach_mul = _binary('mul', torch.mul, False)
_foreach_mul_ = _binary('mul', lambda a, b: a.mul_(b), True)
_foreach_div = _binary('div', torch.div, False)
_foreach_div_ = _binary('div', lambda a, b: a.div_(b), True)
_foreach_maximum = _binary('maximum', torch.maximum, False)
_foreach_maximum_ = _binary('maximum', lambda a, b: torch.maximum(a, b, out=a), True)
_foreach_sqrt = _unary('sqrt', torch.sqrt, False)
_foreach_sqrt_ = _unary('sqrt', lambda a: a.sqrt_(), True)
_foreach_neg = _unary('neg', torch.neg, False)
# no Tensor.neg_ yet: times -1 is the same bits
_foreach_neg_ = _unary('neg', lambda a: a.mul_(-1), True)
_foreach_zero_ = _unary('zero', lambda a: a.zero_(), True)
_foreach_addcmul = _pointwise('addcmul', _addcmul, False)
_foreach_addcmul_ = _pointwise('addcmul', _addcmul_, True)
_foreach_addcdiv = _pointwise('addcdiv', _addcdiv, False)
_foreach_addcdiv_ = _pointwise('addcdiv', _addcdiv_, True)


def _foreach_lerp(self, tensors1, weight):
    return _binary('lerp', lambda s, e: _lerp(s, e, weight, False), False)(self, tensors1)


def _foreach_lerp_(self, tensors1, weight):
    return _binary('lerp', lambda s, e: _lerp(s, e, weight, True), True)(self, tensors1)


def _foreach_norm(self, ord=2):
    # one list walked; the norms are per-tensor scalars
    return _unary('norm', lambda t: _vector_norm(t, float(ord)), False, depth=1)(self)


__all__ = [n for n in dict(globals()) if n.startswith('_foreach_')]
