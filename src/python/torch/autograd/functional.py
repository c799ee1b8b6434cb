"""torch.autograd.functional: jacobian, hessian, vjp, jvp, vhp and hvp,
over reverse-mode autograd.grad as PyTorch's own implementation is (one
backward per output element for jacobian; jvp by the double-backward
trick). vectorize=True and the forward-mode strategy are not modeled:
they fail by name."""

import torch
from torch import _unmodeled


def _as_tuple(x, arg, fn):
    if isinstance(x, tuple):
        for i, t in enumerate(x):
            if not isinstance(t, torch.Tensor):
                raise TypeError("The {} given to {} must be either a Tensor or a tuple of Tensors but the value at "
                                "index {} has type {}.".format(arg, fn, i, type(t)))
        return True, x
    if isinstance(x, list):
        return True, tuple(x)
    if not isinstance(x, torch.Tensor):
        raise TypeError("The {} given to {} must be either a Tensor or a tuple of Tensors but the given {} has "
                        "type {}.".format(arg, fn, arg, type(x)))
    return False, (x,)


def _untuple(is_tuple, x):
    return x if is_tuple else x[0]


def _grad_inputs(inputs, create_graph):
    # detached copies that require grad: the graph starts here
    return tuple(t.detach().requires_grad_(True) if not (create_graph and t.requires_grad) else t.view_as(t)
                 for t in inputs)


def _refuse(vectorize=False, strategy="reverse-mode"):
    if vectorize:
        raise _unmodeled.unsupported("torch.autograd.functional.jacobian(..., vectorize=True)")
    if strategy != "reverse-mode":
        raise _unmodeled.unsupported("torch.autograd.functional.jacobian(..., strategy='forward-mode')")


def _grads(outputs, inputs, grad_outputs, create_graph, strict, what):
    grads = torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph=True, create_graph=create_graph,
                                allow_unused=True)
    result = []
    for i, (g, inp) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError("The output of the user-provided function is independent of input {}. This is "
                                   "not allowed in strict mode.".format(i))
            g = torch.zeros_like(inp)
        result.append(g)
    return tuple(result)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    _refuse(vectorize, strategy)
    with torch.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_inputs(inputs, create_graph)
        outputs = func(*inputs)
        out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        rows = []
        for out in outputs:
            per_input = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(flat.numel()):
                grads = _grads((flat[j],), inputs, None, create_graph, strict, "jacobian")
                for i, g in enumerate(grads):
                    per_input[i].append(g)
            blocks = []
            for i, inp in enumerate(inputs):
                if per_input[i]:
                    block = torch.stack(per_input[i]).reshape(tuple(out.shape) + tuple(inp.shape))
                else:
                    block = torch.zeros(tuple(out.shape) + tuple(inp.shape), dtype=inp.dtype, device=inp.device)
                blocks.append(block if create_graph else block.detach())
            rows.append(tuple(blocks))
    if out_tuple:
        return tuple(_untuple(in_tuple, r) for r in rows)
    return _untuple(in_tuple, rows[0])


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    _refuse(vectorize, outer_jacobian_strategy)
    in_tuple, tupled = _as_tuple(inputs, "inputs", "hessian")

    def scalar_grad(*args):
        out = func(*args)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_tuple or outs[0].numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor with a single element.")
        return _grads(outs, args, None, True, strict, "hessian")

    result = jacobian(scalar_grad, tupled, create_graph=create_graph, strict=strict)
    if not in_tuple:
        return result[0][0] if isinstance(result, tuple) and isinstance(result[0], tuple) else result[0]
    return result


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    with torch.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_inputs(inputs, create_graph)
        outputs = func(*inputs)
        out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            vs = None
        else:
            _, vs = _as_tuple(v, "v", "vjp")
        grads = _grads(outputs, inputs, vs, create_graph, strict, "vjp")
    detach = (lambda t: t) if create_graph else (lambda t: t.detach())
    return (_untuple(out_tuple, tuple(detach(o) for o in outputs)), _untuple(in_tuple, tuple(detach(g) for g in grads)))


def _input_vectors(v, inputs, name):
    """The vectors v that multiply the inputs' side; None only for one
    single-element input (then ones, as PyTorch's functions take it)."""
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        return (torch.ones_like(inputs[0]),)
    return _as_tuple(v, "v", name)[1]


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    with torch.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_inputs(inputs, create_graph)
        vs = _input_vectors(v, inputs, "jvp")
        outputs = func(*inputs)
        out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        # the double-backward trick: u -> J^T u is linear in u, its gradient J v
        dummies = tuple(torch.zeros_like(o, requires_grad=True) for o in outputs)
        grads = _grads(outputs, inputs, dummies, True, strict, "jvp")
        jv = _grads(grads, dummies, vs, create_graph, strict, "jvp")
    detach = (lambda t: t) if create_graph else (lambda t: t.detach())
    return (_untuple(out_tuple, tuple(detach(o) for o in outputs)), _untuple(out_tuple, tuple(detach(g) for g in jv)))


def _second_order(func, inputs, v, create_graph, strict, name, transpose):
    with torch.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _grad_inputs(inputs, create_graph)
        outputs = func(*inputs)
        is_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", name)
        if is_tuple or outs[0].numel() != 1:
            raise RuntimeError("The function given to {} should return a single Tensor with a single element."
                               .format(name))
        vs = _input_vectors(v, inputs, name)
        grads = _grads(outs, inputs, None, True, strict, name)
        result = _grads(grads, inputs, vs, create_graph, strict, name)
    detach = (lambda t: t) if create_graph else (lambda t: t.detach())
    return detach(outs[0]), _untuple(in_tuple, tuple(detach(r) for r in result))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    return _second_order(func, inputs, v, create_graph, strict, "vhp", False)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    # the Hessian is symmetric for the twice-differentiable functions both
    # names serve: v^T H = (H v)^T
    return _second_order(func, inputs, v, create_graph, strict, "hvp", True)
