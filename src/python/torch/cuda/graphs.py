"""torch.cuda's graph API (torch/cuda/graphs.py upstream): CUDAGraph, the
graph() capture context, graph_pool_handle, is_current_stream_capturing and
make_graphed_callables (forward and backward graphs).

Capture is the runtime's (src/core/runtime/ts-runtime-graphs.c): work on a
capturing stream is recorded, not run; replay submits it again as one
cudaGraphLaunch with the same addresses. Memory allocated during capture
comes from the graph's private pool of the caching allocator, as
CUDAGraph::capture_begin's beginAllocateToPool routes it."""

import gc

import torch
from torch import _C, _unmodeled

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing",
           "make_graphed_callables"]


def graph_pool_handle():
    """An opaque token for a memory pool shared between graph captures
    (and MemPool): (0, n), n counting from 1 with every MemPool."""
    return _C._graph_pool_handle(True)


def is_current_stream_capturing():
    """True if CUDA graph capture is under way on the current CUDA stream."""
    if not _C._cuda_is_initialized():
        return False
    return _C._stream_is_capturing(torch.cuda.current_stream()._id)


class CUDAGraph:
    """Wrapper around a CUDA graph (at::cuda::CUDAGraph)."""

    def __init__(self, keep_graph=False):
        self._graph = None
        self._capture_stream = None
        self._device = None
        self._pool = None
        self._debug = False
        self._rng_increment = 0

    def capture_begin(self, pool=None, capture_error_mode="global"):
        if capture_error_mode not in ("global", "thread_local", "relaxed"):
            raise RuntimeError("Unknown capture error mode. Expected `global`, `thread_local`, or "
                               "`relaxed`, got %s" % capture_error_mode)
        if self._graph is not None:
            raise RuntimeError("This CUDAGraph instance already owns a captured graph. "
                               "To capture a new graph, create a new instance.")
        stream = torch.cuda.current_stream()
        device = stream.device_index
        # a pool of the graph's own, (n, 0), unless one is shared
        pool = tuple(pool) if pool is not None else _C._graph_pool_handle(False)
        capture_id = _C._graph_capture_begin(stream._id)
        # allocations on the streams of this capture go to the pool
        _C._cuda_beginAllocateToPool(device, pool, capture_id)
        # the graph-safe generator: captured offsets count from 0
        _C._rng_capture_prologue(device)
        self._capture_stream = stream
        self._device = device
        self._pool = pool

    def capture_end(self):
        stream = torch.cuda.current_stream()
        if self._capture_stream is None or stream != self._capture_stream:
            raise RuntimeError("Capture must end on the same stream it began on.")
        try:
            self._graph = _C._graph_capture_end(stream._id)
        finally:
            _C._cuda_endAllocateToPool(self._device, self._pool)
            self._rng_increment = _C._rng_capture_epilogue(self._device)
        if _C._graph_n_nodes(self._graph) == 0:
            import warnings
            warnings.warn("The CUDA Graph is empty. This usually means that the graph was attempted "
                          "to be captured on wrong device or stream.")

    def replay(self):
        if self._graph is None:
            raise RuntimeError("Called CUDAGraph::replay without a preceding successful capture.")
        # each replay draws fresh Philox offsets, as PyTorch's replay_prologue
        if self._rng_increment:
            _C._rng_replay_prologue(self._device, self._rng_increment)
        _C._graph_replay(self._graph, torch.cuda.current_stream()._id)

    def reset(self):
        # releasePool: once no graph uses the pool, empty_cache frees its
        # segments, as PyTorch's
        if self._pool is not None:
            _C._cuda_releasePool(self._device, self._pool)
        self._graph = None
        self._pool = None
        self._capture_stream = None

    def pool(self):
        if self._graph is None:
            raise RuntimeError("Called CUDAGraph::pool() without a preceding successful capture.")
        return self._pool

    def enable_debug_mode(self):
        self._debug = True

    def debug_dump(self, debug_path):
        """Tensorscope's own description of the graph (not CUDA's DOT)."""
        if not self._debug:
            import warnings
            warnings.warn("CUDA Graphs debug not enabled, set with "
                          "[graph].enable_debug_mode()")
            return
        with open(debug_path, "w") as f:
            f.write("tensorscope CUDA graph: %d nodes, pool %r, captured on stream %d\n"
                    % (_C._graph_n_nodes(self._graph) if self._graph is not None else 0,
                       self._pool, self._capture_stream.cuda_stream if self._capture_stream else 0))

    def __del__(self):
        try:
            if self._pool is not None:
                self.reset()
        except Exception:
            pass


class graph:
    """Context manager that captures CUDA work into a CUDAGraph for later
    replay (PyTorch's torch.cuda.graph)."""

    default_capture_stream = None

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        if self.__class__.default_capture_stream is None:
            self.__class__.default_capture_stream = torch.cuda.Stream()
        self.pool = () if pool is None else (pool,)
        self.capture_stream = stream if stream is not None else self.__class__.default_capture_stream
        self.stream_ctx = torch.cuda.stream(self.capture_stream)
        self.cuda_graph = cuda_graph
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        torch.cuda.synchronize()
        gc.collect()
        torch.cuda.empty_cache()
        self.stream_ctx.__enter__()
        self.cuda_graph.capture_begin(*self.pool, capture_error_mode=self.capture_error_mode)

    def __exit__(self, exc_type, exc_value, traceback):
        try:
            self.cuda_graph.capture_end()
        finally:
            self.stream_ctx.__exit__(exc_type, exc_value, traceback)


def _flatten(obj):
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _flatten(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _flatten(o)]
    return []


def _graph_callable(func, sample_args, params, num_warmup_iters, allow_unused_input, pool):
    """PyTorch's make_graphed_callables for one callable: warm func up on a
    side stream (forward and, when anything requires grad, backward), then
    capture the forward into one graph and torch.autograd.grad of its
    outputs, on static grad outputs, into a second graph sharing the first
    one's pool. The result is an autograd.Function whose forward replays
    the first graph and whose backward replays the second."""
    user_inputs = _flatten(sample_args)
    surface = tuple(user_inputs) + tuple(params)
    n_user = len(user_inputs)
    needs_grad = [t.requires_grad for t in surface]
    grad_inputs = tuple(t for t in surface if t.requires_grad)

    def backward_of(outputs, grad_outputs):
        outs = [o for o in outputs if o.requires_grad]
        grads = [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
        return torch.autograd.grad(outputs=outs, inputs=grad_inputs, grad_outputs=grads,
                                   only_inputs=True, allow_unused=allow_unused_input)

    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(num_warmup_iters):
            outputs = _flatten(func(*sample_args))
            if grad_inputs and any(o.requires_grad for o in outputs):
                backward_of(outputs, [torch.empty_like(o) for o in outputs])
            del outputs
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()

    fwd_graph = CUDAGraph()
    with graph(fwd_graph, pool=pool):
        captured = func(*sample_args)
    static_outputs = tuple(_flatten(captured))
    single = isinstance(captured, torch.Tensor)

    bwd_graph = None
    static_grad_outputs = tuple(torch.empty_like(o) if o.requires_grad else None for o in static_outputs)
    static_grad_inputs = tuple(None for _ in surface)
    if grad_inputs and any(o.requires_grad for o in static_outputs):
        bwd_graph = CUDAGraph()
        with graph(bwd_graph, pool=fwd_graph.pool()):
            grads = backward_of(static_outputs, static_grad_outputs)
        it = iter(grads)
        static_grad_inputs = tuple(next(it) if need else None for need in needs_grad)

    class Graphed(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            # only the user's arguments may be new tensors; parameters are
            # the captured ones
            for i in range(n_user):
                if surface[i].data_ptr() != inputs[i].data_ptr():
                    surface[i].copy_(inputs[i])
            fwd_graph.replay()
            return tuple(o.detach() for o in static_outputs)

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, *grads):
            if bwd_graph is None:
                return tuple(None for _ in surface)
            for g, grad in zip(static_grad_outputs, grads):
                if g is not None and grad is not None and g.data_ptr() != grad.data_ptr():
                    g.copy_(grad)
            bwd_graph.replay()
            return tuple(b.detach() if b is not None else None for b in static_grad_inputs)

    def graphed(*args):
        inputs = _flatten(args)
        if len(inputs) != n_user:
            raise RuntimeError("make_graphed_callables: the graphed callable got %d tensor inputs, "
                               "captured with %d" % (len(inputs), n_user))
        out = Graphed.apply(*(tuple(inputs) + tuple(params)))
        return out[0] if single else out

    graphed._cuda_graph = fwd_graph
    graphed._cuda_graph_backward = bwd_graph
    return graphed


def make_graphed_callables(callables, sample_args, num_warmup_iters=3, allow_unused_input=False,
                           pool=None):
    """Graphed versions of callables (functions or modules), as PyTorch's:
    the forward and, where inputs or parameters require grad, the backward
    are each captured once and replayed on every call."""
    just_one = not isinstance(callables, tuple)
    if just_one:
        callables = (callables,)
        sample_args = (sample_args,)
    results = []
    for func, args in zip(callables, sample_args):
        args = args if isinstance(args, tuple) else (args,)
        if not all(isinstance(a, torch.Tensor) for a in _flatten(args)):
            raise TypeError("In the beta API, sample_args for each callable must contain only Tensors. "
                            "Other types are not allowed.")
        if isinstance(func, torch.nn.Module):
            if any(b.requires_grad for b in func.buffers()):
                raise AssertionError("In any :class:`~torch.nn.Module` passed to "
                                     ":func:`~make_graphed_callables`, only parameters may be trainable. "
                                     "All buffers must have ``requires_grad=False``.")
            params = tuple(func.parameters())
            graphed = _graph_callable(func, args, params, num_warmup_iters, allow_unused_input, pool)
            func.forward = _graphed_forward(func, func.training, graphed, func.forward)
            results.append(func)
        else:
            results.append(_graph_callable(func, args, (), num_warmup_iters, allow_unused_input, pool))
    return results[0] if just_one else tuple(results)


def _graphed_forward(module, training, graphed, eager):
    """The module runs its graphs in the train/eval mode it was captured
    in, and its own forward otherwise (PyTorch's make_graphed_forward)."""
    def forward(*args):
        return graphed(*args) if module.training == training else eager(*args)
    return forward


# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
