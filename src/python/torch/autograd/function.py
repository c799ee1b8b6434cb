"""torch.autograd.Function: custom differentiable operations in Python.

The forward runs with grad mode off; its node (named after the class, as
PyTorch names it: MyExp -> MyExpBackward) is then recorded by the C engine
(torch._C._function_record, src/python/ts-py-function.c). In backward the
engine calls _NodeState with the incoming gradients; it runs the class's
backward with the ctx and hands back one gradient per tensor input, after
PyTorch's checks on what backward returned."""

import functools
import weakref

import torch

_RELEASED = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
             "have already been freed). Saved intermediate values of the graph are freed when you call "
             ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
             "graph a second time or if you need to access saved tensors after calling backward.")

_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
          "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor"}


def _type_name(t):
    name = _TYPES.get(str(t.dtype).replace("torch.", ""), "Tensor")
    return ("torch.cuda." if t.is_cuda else "torch.") + name


class FunctionCtx:
    """The ctx a Function's forward and backward share."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, torch.Tensor):
                raise TypeError("save_for_backward can only save variables, but argument %d is of type %s"
                                % (tensors.index(t), type(t).__name__))
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        raise torch._unmodeled.NotModeledError("forward-mode AD (save_for_forward) is not modeled by Tensorscope")

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value

    @property
    def saved_tensors(self):
        if getattr(self, "_released", False):
            raise RuntimeError(_RELEASED)
        saved = getattr(self, "_saved", ())
        # a saved output is held weakly (the output holds this ctx through
        # its grad_fn): the output itself while it lives, else its alias
        saved = [(_alive(ref, t), version) for t, version, ref in saved]
        for t, version in saved:
            if t is not None and t._version != version:
                which = ""
                if t.grad_fn is not None:
                    which = ", which is output 0 of %s," % t.grad_fn.name()
                raise RuntimeError("one of the variables needed for gradient computation has been modified by "
                                   "an inplace operation: [%s [%s]]%s is at version %d; expected version %d "
                                   "instead. Hint: enable anomaly detection to find the operation that failed "
                                   "to compute its gradient, with torch.autograd.set_detect_anomaly(True)."
                                   % (_type_name(t), ", ".join(str(s) for s in t.shape), which, t._version,
                                      version))
        return tuple(t for t, _ in saved)

    saved_variables = saved_tensors


class BackwardCFunction(FunctionCtx):
    """What ctx is: the node's state as Python sees it."""


class _NodeState:
    """The engine's handle on a recorded Function node."""

    def __init__(self, cls, ctx, arg_is_tensor, name):
        self.cls = cls
        self.ctx = ctx
        self.arg_is_tensor = arg_is_tensor
        self.name = name

    @property
    def materialize_grads(self):
        return getattr(self.ctx, "materialize_grads", True)

    def _release(self):
        self.ctx._released = True
        self.ctx._saved = ()

    def __call__(self, *grads):
        result = self.cls.backward(self.ctx, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.arg_is_tensor)
        if len(result) < n or any(r is not None for r in result[n:]):
            raise RuntimeError("function %s returned an incorrect number of gradients (expected %d, got %d)"
                               % (self.name, n, len(result)))
        tensor_grads = []
        for i, (g, is_tensor) in enumerate(zip(result, self.arg_is_tensor)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError("function %s returned a gradient different than None at position %d, but "
                                       "the corresponding forward input was not a Variable" % (self.name, i + 1))
                continue
            if g is not None and not isinstance(g, torch.Tensor):
                raise TypeError("expected Tensor or None (got %s)" % type(g).__name__)
            tensor_grads.append(g)
        return tuple(tensor_grads)


def _overrides(cls, name):
    return getattr(cls, name) is not getattr(Function, name)


class Function:
    """Subclass with static forward(ctx, *args) (or forward(*args) plus
    setup_context(ctx, inputs, output)) and backward(ctx, *grads); call
    Cls.apply(*args)."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            raise TypeError("apply() takes no keyword arguments")
        ctx = BackwardCFunction()
        arg_is_tensor = [isinstance(a, torch.Tensor) for a in args]
        grad_on = torch.is_grad_enabled()
        ctx.needs_input_grad = tuple(bool(t and grad_on and a.requires_grad) for a, t in zip(args, arg_is_tensor))
        with torch.no_grad():
            if _overrides(cls, "setup_context"):
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        return _record(cls, ctx, args, arg_is_tensor, output)


def _record(cls, ctx, args, arg_is_tensor, output):
    single = not isinstance(output, tuple)
    outputs = (output,) if single else output
    inputs = [a for a, t in zip(args, arg_is_tensor) if t]
    dirty = getattr(ctx, "dirty_tensors", ())
    non_diff = getattr(ctx, "non_differentiable", ())
    ctx._saved = tuple((t, t._version if t is not None else 0, None) for t in getattr(ctx, "to_save", ()))
    ctx.to_save = ()
    recording = torch.is_grad_enabled() and any(t.requires_grad for t in inputs)
    if recording:
        for t in dirty:
            if t.is_leaf and t.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    fixed = []
    for o in outputs:
        # an input returned as is (and not modified in place) comes back as
        # a new tensor over it, as PyTorch's outputs are
        if isinstance(o, torch.Tensor) and recording and any(o is i for i in inputs) and \
                not any(o is d for d in dirty):
            with torch.no_grad():
                fixed.append(o.view_as(o))
        else:
            fixed.append(o)
    tensors = [o for o in fixed if isinstance(o, torch.Tensor)]
    name = cls.__name__ + "Backward"
    if recording:
        ctx._saved = tuple(_hold(t, version, outputs, fixed) for t, version, _ in ctx._saved)
        state = _NodeState(cls, ctx, arg_is_tensor, name)
        torch._C._function_record(name, state, inputs, tensors)
        for o, f in zip(outputs, fixed):
            if isinstance(o, torch.Tensor) and any(o is t for t in non_diff):
                f.detach_()
    outputs = tuple(fixed)
    return outputs[0] if single else outputs


def _alive(ref, t):
    held = ref() if ref is not None else None
    return held if held is not None else t


def _hold(t, version, outputs, fixed):
    """How ctx keeps a saved tensor: an output of the Function weakly, with
    a detached alias of its memory, so that output -> grad_fn -> ctx ->
    output is no reference cycle (the engine's saved outputs do the same)."""
    for o, f in zip(outputs, fixed):
        if t is not None and t is o and isinstance(f, torch.Tensor):
            return (f.detach(), version, weakref.ref(f))
    return (t, version, None)


def once_differentiable(fn):
    """The backward runs with grad mode off: its result has no graph, so
    differentiating it again raises instead of giving a wrong answer."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with torch.no_grad():
            outputs = fn(ctx, *args)
        if not torch.is_grad_enabled():
            return outputs
        requires_grad = any(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        if requires_grad:
            raise torch._unmodeled.NotModeledError(
                "a double backward through a @once_differentiable Function is not modeled by Tensorscope "
                "(PyTorch records a node that raises when differentiated)")
        return outputs
    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    def __init__(self, *args, **kwargs):
        raise torch._unmodeled.NotModeledError("torch.autograd.function.NestedIOFunction is not modeled")
