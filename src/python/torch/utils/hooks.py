"""torch.utils.hooks: the handle a hook registration returns."""


class RemovableHandle:
    """remove() takes the hook back out (torch/utils/hooks.py)."""

    def __init__(self, remove):
        self._remove = remove

    def remove(self):
        if self._remove is not None:
            self._remove()
            self._remove = None

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def _pack_with_none(indices, values, size):
    res = [None] * size
    for i, v in zip(indices, values):
        res[i] = v
    return tuple(res)


def _unpack_none(indices, values):
    return tuple(values[i] for i in indices)


class BackwardHook:
    """A module's full backward hooks (PyTorch's torch/utils/hooks.py).

    The module's tensor inputs and outputs pass through an identity
    Function (its node: BackwardHookFunctionBackward). In backward the
    outputs' identity sees the gradients of the outputs (grad_output; the
    pre-hooks may replace them), the inputs' identity those of the inputs
    (grad_input), where the hooks run and may replace them."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _apply(self, on_backward, args):
        import torch
        from torch.autograd.function import Function

        class BackwardHookFunction(Function):
            @staticmethod
            def forward(ctx, *tensors):
                ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
                return tensors

            @staticmethod
            def backward(ctx, *grads):
                return on_backward(grads)

        index = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        tensors = [args[i] for i in index]
        if not (torch.is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args):
        def on_backward(grads):
            if self.grad_outputs is None:
                return grads
            res = _pack_with_none(self.input_tensors_index, grads, self.n_inputs)
            for hook in self.user_hooks:
                out = hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, got {}, but "
                                       "expected {}".format(len(out), len(res)))
                res = out
            self.grad_outputs = None
            return _unpack_none(self.input_tensors_index, res)

        res, self.input_tensors_index = self._apply(on_backward, args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, args):
        def on_backward(grads):
            self.grad_outputs = _pack_with_none(self.output_tensors_index, grads, self.n_outputs)
            for hook in self.user_pre_hooks:
                out = hook(self.module, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(self.grad_outputs):
                    raise RuntimeError("Backward pre hook returned an invalid number of grad_output, got {}, but "
                                       "expected {}".format(len(out), len(self.grad_outputs)))
                self.grad_outputs = tuple(out)
            if self.input_tensors_index is None:
                # no input requires grad: the hooks run here, with None for grad_input
                grad_inputs = _pack_with_none([], [], self.n_inputs)
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                        raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                           "always return None or None for all gradients.")
                self.grad_outputs = None
                return grads
            return _unpack_none(self.output_tensors_index, self.grad_outputs)

        single = not isinstance(args, tuple)
        res, self.output_tensors_index = self._apply(on_backward, (args,) if single else args)
        self.n_outputs = 1 if single else len(args)
        return res[0] if single else res
