"""torch.autograd: grad mode, backward() and grad() (torch/autograd/__init__.py).

The engine is Tensorscope's C one (src/core/autograd, docs/autograd.md);
this file gives it PyTorch's arguments; function.py is
torch.autograd.Function. What PyTorch has here and Tensorscope does not
model (functional, forward AD) says so by name when used."""

import torch
from torch import _unmodeled

from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401
from . import function  # noqa: F401
from .function import Function, once_differentiable  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401


def _as_tuple(tensors):
    if isinstance(tensors, torch.Tensor):
        return (tensors,)
    return tuple(tensors)


def _tensor_or_tensors_to_tuple(tensors, length):
    if tensors is None:
        return (None,) * length
    return _as_tuple(tensors)


# False while a grad() or a backward(inputs=...) pass runs: checkpoint's
# recomputation (a backward inside the pass) cannot serve those
_checkpoint_valid = [True]


def _is_checkpoint_valid():
    return _checkpoint_valid[-1]


def _run_pass(valid, fn, *args):
    _checkpoint_valid.append(valid)
    try:
        return fn(*args)
    finally:
        _checkpoint_valid.pop()


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed "
                               "to backward(). Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    tensors = _as_tuple(tensors)
    inputs = _as_tuple(inputs) if inputs is not None else None
    # as PyTorch 1.13's _make_grads, extra gradients are ignored (zip)
    grads = _tensor_or_tensors_to_tuple(grad_tensors, len(tensors))[:len(tensors)]
    grads += (None,) * (len(tensors) - len(grads))
    if retain_graph is None:
        retain_graph = create_graph
    # the host time of _make_grads and the hand-off to the engine's thread
    torch._C._charge_host("backward_entry")
    _run_pass(inputs is None, torch._C._run_backward, tensors, grads, bool(retain_graph), bool(create_graph),
              inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    if is_grads_batched:
        raise _unmodeled.NotModeledError("torch.autograd.grad(is_grads_batched=True) (vmap) is not modeled")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grads = _tensor_or_tensors_to_tuple(grad_outputs, len(outputs))
    if len(grads) != len(outputs):
        raise RuntimeError("grad_outputs must be of size %d, but got %d" % (len(outputs), len(grads)))
    if retain_graph is None:
        retain_graph = create_graph
    return _run_pass(False, torch._C._run_grad, outputs, inputs, grads, bool(retain_graph), bool(create_graph),
                     bool(allow_unused), bool(materialize_grads))


from . import functional  # noqa: E402,F401

__getattr__ = _unmodeled.module_getattr(__name__)
