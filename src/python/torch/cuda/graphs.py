"""torch.cuda's graph API (torch/cuda/graphs.py upstream): CUDAGraph, the
graph() capture context, graph_pool_handle, is_current_stream_capturing and
make_graphed_callables (forward only: backward needs autograd replay).

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


def _graph_forward(func, sample_args, num_warmup_iters, pool):
    """Warms func up on a side stream, captures one call with sample_args
    as the static inputs and returns the replaying function."""
    static_inputs = _flatten(sample_args)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(num_warmup_iters):
            func(*sample_args)
    torch.cuda.current_stream().wait_stream(side)
    g = CUDAGraph()
    with graph(g, pool=pool):
        static_outputs = func(*sample_args)

    def replay(*args):
        inputs = _flatten(args)
        if len(inputs) != len(static_inputs):
            raise RuntimeError("make_graphed_callables: the graphed callable got %d tensor inputs, "
                               "captured with %d" % (len(inputs), len(static_inputs)))
        for dst, src in zip(static_inputs, inputs):
            if dst.data_ptr() != src.data_ptr():
                dst.copy_(src)
        g.replay()
        return static_outputs

    replay._cuda_graph = g
    return replay


def make_graphed_callables(callables, sample_args, num_warmup_iters=3, allow_unused_input=False,
                           pool=None):
    """Graphed versions of callables (functions or modules); forward only:
    inputs and parameters that require grad are refused until autograd
    can be captured."""
    just_one = not isinstance(callables, tuple)
    if just_one:
        callables = (callables,)
        sample_args = (sample_args,)
    results = []
    for func, args in zip(callables, sample_args):
        args = args if isinstance(args, tuple) else (args,)
        tensors = _flatten(args)
        if isinstance(func, torch.nn.Module):
            tensors = tensors + list(func.parameters())
        if any(t.requires_grad for t in tensors):
            raise _unmodeled.NotModeledError(
                "torch.cuda.make_graphed_callables with inputs or parameters that require grad "
                "(graphed backward) is not modeled by Tensorscope yet")
        if isinstance(func, torch.nn.Module):
            func.forward = _graph_forward(func.forward, args, num_warmup_iters, pool)
            results.append(func)
        else:
            results.append(_graph_forward(func, args, num_warmup_iters, pool))
    return results[0] if just_one else tuple(results)


# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
