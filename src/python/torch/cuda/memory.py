"""torch.cuda's memory API (torch/cuda/memory.py upstream)."""

import collections
import contextlib
import warnings

import torch
from torch import _C, _unmodeled

__all__ = [
    "memory_stats", "memory_summary", "memory_snapshot", "memory_allocated", "max_memory_allocated",
    "memory_reserved", "max_memory_reserved", "memory_cached", "max_memory_cached",
    "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached",
    "reset_accumulated_memory_stats", "empty_cache", "set_per_process_memory_fraction",
    "mem_get_info", "caching_allocator_alloc", "caching_allocator_delete", "list_gpu_processes",
    "memory_stats_as_nested_dict", "MemPool", "MemPoolContext", "use_mem_pool",
]


def _idx(device):
    from . import _get_device_index
    return _get_device_index(device, optional=True)


def memory_stats(device=None):
    """PyTorch flattens the allocator's nested dict to "a.b.c" keys and
    returns them sorted, in an OrderedDict."""
    if not _C._cuda_is_initialized():
        return collections.OrderedDict()
    stats = _C._memory_stats(_idx(device))
    return collections.OrderedDict(sorted(stats.items()))


def memory_stats_as_nested_dict(device=None):
    if not _C._cuda_is_initialized():
        return {}
    nested = {}
    for key, value in _C._memory_stats(_idx(device)).items():
        node = nested
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return nested


def memory_allocated(device=None):
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def memory_cached(device=None):
    warnings.warn("torch.cuda.memory_cached has been renamed to torch.cuda.memory_reserved",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None):
    warnings.warn("torch.cuda.max_memory_cached has been renamed to torch.cuda.max_memory_reserved",
                  FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None):
    _C._reset_peak_memory_stats(_idx(device))


def reset_max_memory_allocated(device=None):
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    _C._reset_accumulated_memory_stats(_idx(device))


def empty_cache():
    if _C._cuda_is_initialized():
        _C._empty_cache()


def memory_summary(device=None, abbreviated=False):
    """The table PyTorch prints, byte for byte (the allocator formats it)."""
    return _C._memory_summary(_idx(device), abbreviated)


def memory_snapshot(mempool_id=None):
    """The segments of every device's caching allocator (PyTorch's layout);
    with a mempool_id, only that private pool's segments."""
    segments = _C._memory_snapshot()["segments"]
    if mempool_id is not None:
        segments = [s for s in segments if s["segment_pool_id"] == tuple(mempool_id)]
    return segments


def set_per_process_memory_fraction(fraction, device=None):
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    _C._set_memory_fraction(fraction, _idx(device))


def mem_get_info(device=None):
    return _C._mem_get_info(_idx(device))


def caching_allocator_alloc(size, device=None, stream=None):
    """A raw block of the caching allocator (counted in memory_allocated)
    that no tensor owns; give it back with caching_allocator_delete."""
    if device is None:
        device = torch.cuda.current_device()
    device = _idx(device)
    if stream is None:
        stream = torch.cuda.current_stream(device)
    if isinstance(stream, torch.cuda.streams.Stream):
        stream = stream.cuda_stream
    if not isinstance(stream, int):
        raise TypeError("Invalid type for stream argument, must be "
                        "`torch.cuda.Stream` or `int` representing a pointer "
                        "to a existing stream")
    return _C._caching_allocator_alloc(size, device, stream)


def caching_allocator_delete(mem_ptr):
    _C._caching_allocator_delete(mem_ptr)


def list_gpu_processes(device=None):
    return "GPU:%d\nno processes are running" % _idx(device)


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=9223372036854775807,
                           device=None):
    # The checks and messages of torch/csrc/cuda/Module.cpp (RuntimeError);
    # a bool selects the legacy form.
    if not isinstance(enabled, bool):
        if enabled is not None and enabled not in ("state", "all"):
            raise RuntimeError("expected state to be 'state', 'all', or None")
        if context is not None and context not in ("state", "alloc", "all"):
            raise RuntimeError("expected context to be 'state', 'alloc', 'all', or None")
        if stacks not in ("python", "all"):
            raise RuntimeError("expected stacks to be 'python', or 'all'")
    _C._record_memory_history(bool(enabled), min(int(max_entries), 2 ** 63 - 1))


def _snapshot(device=None):
    return _C._memory_snapshot()


def _dump_snapshot(filename="dump_snapshot.pickle"):
    import pickle
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)


def _set_allocator_settings(env):
    """PYTORCH_CUDA_ALLOC_CONF syntax, applied over the current settings."""
    _C._cuda_cudaCachingAllocator_set_allocator_settings(env)


class MemPool:
    """A private pool of the caching allocator (PyTorch >= 2.5): memory
    allocated inside use_mem_pool(pool) comes from segments of its own,
    reused only by later allocations into the same pool. The id is
    (0, n), as graph_pool_handle() gives; only the default allocator is
    modelled, so allocator is None."""

    def __init__(self, allocator=None):
        if allocator is not None:
            raise RuntimeError("Tensorscope models the default CUDA caching allocator only: "
                               "MemPool(allocator=...) is not supported")
        self._id = _C._graph_pool_handle(True)
        self._device = torch.cuda.current_device()
        _C._cuda_createOrIncrefPool(self._device, self._id)

    @property
    def id(self):
        return self._id

    @property
    def allocator(self):
        return None

    def use_count(self):
        return _C._cuda_poolUseCount(self._device, self._id)

    def snapshot(self):
        return memory_snapshot(self._id)

    def __del__(self):
        # ~MemPool: releasePool, then emptyCache(id) frees the pool's unused
        # segments (and forgets the pool once it holds none).
        try:
            _C._cuda_releasePool(self._device, self._id)
            _C._cuda_emptyCachePools()
        except Exception:
            pass


class MemPoolContext:
    """The active pool of this thread while it lives (PyTorch 2.5/2.6)."""
    _active = []

    def __init__(self, pool):
        self._pool = pool
        MemPoolContext._active.append(pool)

    def __del__(self):
        if self._pool in MemPoolContext._active:
            MemPoolContext._active.remove(self._pool)

    @staticmethod
    def active_pool():
        return MemPoolContext._active[-1] if MemPoolContext._active else None


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    """Routes this thread's allocations on the device to pool inside the
    block: beginAllocateToPool adds a use, endAllocateToPool and
    releasePool take it back."""
    ctx = MemPoolContext(pool)
    device_index = torch.cuda.current_device() if device is None else _idx(device)
    _C._cuda_beginAllocateCurrentThreadToPool(device_index, pool.id)
    try:
        yield
    finally:
        _C._cuda_endAllocateToPool(device_index, pool.id)
        _C._cuda_releasePool(device_index, pool.id)
        del ctx


# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
