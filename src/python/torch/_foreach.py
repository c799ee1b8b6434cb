"""torch._foreach_*: PyTorch's multi-tensor ops.

Each op is its per-tensor ops in PyTorch's order (1.13's CPU slow path,
which loops over the lists calling the single-tensor op), so the values
are the single-tensor ops' to the last bit. On CUDA tensors their kernels
go into multi-tensor launches, one per chunk of the lists as PyTorch's
multi_tensor_apply makes them (_C._multi_tensor_begin; docs/simulation-
model.md). depth is the number of lists the CUDA kernel walks (the outputs
of a functional form included)."""

import functools
import operator

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


def _loop(name, depth, fn, inplace, lists):
    """fn over the lists' tensors in one multi-tensor launch; the results
    (None for an in-place op). The two-list form (the binary ops an
    optimizer step runs over every parameter) without argument packing."""
    out = None if inplace else []
    _C._multi_tensor_begin(name, depth)
    try:
        if len(lists) == 2:
            for s, o in zip(*lists):
                _next_tensor(s)
                r = fn(s, o)
                if out is not None:
                    out.append(r)
        else:
            for args in zip(*lists):
                _next_tensor(args[0])
                r = fn(*args)
                if out is not None:
                    out.append(r)
    finally:
        _C._multi_tensor_end()
    return out


def _binary(name, fn, inplace):
    """_foreach_<name>(self, other) with other a number, a list of numbers or
    a list of tensors; fn (a, b) is the single-tensor op (keywords, such as
    alpha, go to it)."""
    def op(self, other, **kwargs):
        self = list(self)
        is_list = isinstance(other, (list, tuple))
        others = list(other) if is_list else [other] * len(self)
        _check_lists(op.__name__, self, others)
        tensors = is_list and isinstance(others[0], torch.Tensor)
        depth = 1 + tensors + (not inplace)
        f = functools.partial(fn, **kwargs) if kwargs else fn
        return _loop(op.__name__, depth, f, inplace, (self, others))
    op.__name__ = '_foreach_' + name + ('_' if inplace else '')
    return op


def _unary(name, fn, inplace, depth=None):
    def op(self):
        self = list(self)
        _check_lists(op.__name__, self)
        return _loop(op.__name__, depth or (1 if inplace else 2), fn, inplace, (self,))
    op.__name__ = '_foreach_' + name + ('_' if inplace else '')
    return op


def _pointwise(name, fn, inplace):
    """addcmul/addcdiv: value a number or a list of numbers"""
    def op(self, tensor1, tensor2, value=1):
        self, tensor1, tensor2 = list(self), list(tensor1), list(tensor2)
        values = list(value) if isinstance(value, (list, tuple)) else [value] * len(self)
        _check_lists(op.__name__, self, tensor1, tensor2, values)
        return _loop(op.__name__, 3 if inplace else 4, fn, inplace, (self, tensor1, tensor2, values))
    op.__name__ = '_foreach_' + name + ('_' if inplace else '')
    return op


# 1.13's CPU slow path calls the single-tensor op for each tensor: addcmul_
# is one kernel with one fused multiply-add (ts-cpu-more.c), which three
# separate ops would not reproduce bit for bit
def _addcmul(s, a, b, v):
    return torch.addcmul(s, a, b, value=v)


def _addcmul_(s, a, b, v):
    return s.addcmul_(a, b, value=v)


def _addcdiv(s, a, b, v):
    return torch.addcdiv(s, a, b, value=v)


def _addcdiv_(s, a, b, v):
    return s.addcdiv_(a, b, value=v)


def _lerp(s, end, weight, inplace):
    return s.lerp_(end, weight) if inplace else torch.lerp(s, end, weight)


def _scaled(b, alpha):
    return b if alpha == 1 else b * alpha


def _add(a, b, alpha=1):
    return torch.add(a, b, alpha=alpha) if isinstance(b, torch.Tensor) else a + _scaled(b, alpha)


def _add_(a, b, alpha=1):
    # Tensor.add_'s one kernel with alpha, called directly (an optimizer's
    # update: a frame fewer for each parameter)
    if isinstance(b, torch.Tensor):
        if alpha != 1 and isinstance(alpha, (int, float)) and \
                _C._add_alpha(a, b, float(alpha), False, True) is not None:
            return a
        return a.add_(b, alpha=alpha)
    return operator.iadd(a, _scaled(b, alpha))


def _sub(a, b, alpha=1):
    return torch.sub(a, b, alpha=alpha) if isinstance(b, torch.Tensor) else a - _scaled(b, alpha)


def _sub_(a, b, alpha=1):
    return a.sub_(b, alpha=alpha) if isinstance(b, torch.Tensor) else operator.isub(a, _scaled(b, alpha))


# the plain arithmetic ones are the operators themselves (the Tensor
# methods mul_, div_, mul, div are these operators)
_foreach_add = _binary('add', _add, False)
_foreach_add_ = _binary('add', _add_, True)
_foreach_sub = _binary('sub', _sub, False)
_foreach_sub_ = _binary('sub', _sub_, True)
_foreach_mul = _binary('mul', operator.mul, False)
_foreach_mul_ = _binary('mul', operator.imul, True)
_foreach_div = _binary('div', operator.truediv, False)
_foreach_div_ = _binary('div', operator.itruediv, True)
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
