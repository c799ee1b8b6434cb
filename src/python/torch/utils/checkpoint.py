"""torch.utils.checkpoint: trade compute for memory (PyTorch 1.13's).

checkpoint(fn, *args) runs fn without recording a graph, so its
activations are freed at once; the backward pass runs fn again with grad
mode on (with the forward's RNG state when preserve_rng_state) and
backpropagates through that recomputation, so the memory timeline shows
the activations coming back during backward.

Both use_reentrant=True and False recompute through one node,
CheckpointFunctionBackward, whose backward calls backward() inside the
pass (reentrant). PyTorch 1.13's non-reentrant form instead records the
real ops' nodes and recomputes through saved-tensor hooks, which
Tensorscope does not have: its gradients are the same, the outputs'
grad_fn name differs, and torch.autograd.grad() through it is refused
loudly (PyTorch's reentrant form refuses it too)."""

import warnings

import torch
from torch import _unmodeled
from torch.autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction", "detach_variable",
           "check_backward_validity"]


def detach_variable(inputs):
    if isinstance(inputs, tuple):
        out = []
        for inp in inputs:
            if not isinstance(inp, torch.Tensor):
                out.append(inp)
                continue
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        return tuple(out)
    raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: ",
                       type(inputs).__name__)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, torch.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


def get_device_states(*args):
    devices = sorted({arg.get_device() for arg in args if isinstance(arg, torch.Tensor) and arg.is_cuda})
    return devices, [torch.cuda.get_rng_state(d) for d in devices]


def set_device_states(devices, states):
    for device, state in zip(devices, states):
        torch.cuda.set_rng_state(state, device)


class _ForkRng:
    """The RNG states as they were, put back on exit (torch.random.fork_rng)."""

    def __init__(self, devices, enabled):
        self.devices = devices
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.cpu = torch.get_rng_state()
            self.gpu = [torch.cuda.get_rng_state(d) for d in self.devices]

    def __exit__(self, *exc):
        if self.enabled:
            torch.set_rng_state(self.cpu)
            set_device_states(self.devices, self.gpu)
        return False


def _get_autocast_kwargs():
    """Autocast's state at the forward, for the recomputation: backward
    runs outside the forward's autocast region, and without it the
    recomputed activations would have other dtypes (other memory, other
    kernel times) than the ones the forward freed, as PyTorch avoids."""
    gpu_autocast_kwargs = {"enabled": torch.is_autocast_enabled(),
                           "dtype": torch.get_autocast_gpu_dtype(),
                           "cache_enabled": torch.is_autocast_cache_enabled()}
    cpu_autocast_kwargs = {"enabled": torch.is_autocast_cpu_enabled(),
                           "dtype": torch.get_autocast_cpu_dtype(),
                           "cache_enabled": torch.is_autocast_cache_enabled()}
    return gpu_autocast_kwargs, cpu_autocast_kwargs


class CheckpointFunction(Function):

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        if not getattr(ctx, "_non_reentrant", False):
            check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.gpu_autocast_kwargs, ctx.cpu_autocast_kwargs = _get_autocast_kwargs()
        ctx.had_cuda_in_fwd = False
        if preserve_rng_state:
            ctx.fwd_cpu_state = torch.get_rng_state()
            if torch.cuda.is_initialized():
                ctx.had_cuda_in_fwd = True
                ctx.fwd_gpu_devices, ctx.fwd_gpu_states = get_device_states(*args)
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, torch.Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with torch.no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        if not torch.autograd._is_checkpoint_valid():
            if getattr(ctx, "_non_reentrant", False):
                raise _unmodeled.NotModeledError(
                    "checkpoint(use_reentrant=False) under torch.autograd.grad() or backward(inputs=...) is not "
                    "modeled by Tensorscope (it recomputes through a reentrant backward)")
            raise RuntimeError("Checkpointing is not compatible with .grad() or when an `inputs` parameter is "
                               "passed to .backward(). Please use .backward() and do not pass its `inputs` "
                               "argument.")
        inputs = list(ctx.inputs)
        tensors = ctx.saved_tensors
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = tensors[i]
        devices = ctx.fwd_gpu_devices if ctx.preserve_rng_state and ctx.had_cuda_in_fwd else []
        with _ForkRng(devices, ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                torch.set_rng_state(ctx.fwd_cpu_state)
                if ctx.had_cuda_in_fwd:
                    set_device_states(ctx.fwd_gpu_devices, ctx.fwd_gpu_states)
            detached_inputs = detach_variable(tuple(inputs))
            with torch.enable_grad(), \
                 torch.cuda.amp.autocast(**ctx.gpu_autocast_kwargs), \
                 torch.cpu.amp.autocast(**ctx.cpu_autocast_kwargs):
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        outputs_with_grad = []
        args_with_grad = []
        for i in range(len(outputs)):
            if isinstance(outputs[i], torch.Tensor) and outputs[i].requires_grad:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if len(outputs_with_grad) == 0:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        torch.autograd.backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, torch.Tensor) else None for inp in detached_inputs)
        if getattr(ctx, "_non_reentrant", False):
            grads = grads + (None,)
        return (None, None) + grads


class _NonReentrant(CheckpointFunction):
    """use_reentrant=False: a dummy input that requires grad makes the node
    record even when no input does, so the recomputation still reaches
    the parameters fn uses (PyTorch's non-reentrant form does)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx._non_reentrant = True
        return CheckpointFunction.forward(ctx, run_function, preserve_rng_state, *args[:-1])


_NonReentrant.__name__ = "CheckpointFunction"


def checkpoint(function, *args, use_reentrant=True, **kwargs):
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if kwargs:
        inner = function
        function = lambda *a: inner(*a, **kwargs)  # noqa: E731
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve, *args)
    dummy = torch.empty((0,), requires_grad=True)
    return _NonReentrant.apply(function, preserve, *args, dummy)


def checkpoint_sequential(functions, segments, input, use_reentrant=True, **kwargs):
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
