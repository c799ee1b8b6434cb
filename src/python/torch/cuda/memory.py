"""torch.cuda's memory API (torch/cuda/memory.py upstream)."""

import torch
from torch import _C

__all__ = [
    "memory_stats", "memory_summary", "memory_snapshot", "memory_allocated", "max_memory_allocated",
    "memory_reserved", "max_memory_reserved", "memory_cached", "max_memory_cached",
    "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached",
    "reset_accumulated_memory_stats", "empty_cache", "set_per_process_memory_fraction",
    "mem_get_info", "caching_allocator_alloc", "caching_allocator_delete", "list_gpu_processes",
]


def _idx(device):
    from . import _get_device_index
    return _get_device_index(device, optional=True)


def memory_stats(device=None):
    if not _C._cuda_is_initialized():
        return {}
    stats = _C._memory_stats(_idx(device))
    return dict(sorted(stats.items()))


def memory_stats_as_nested_dict(device=None):
    return memory_stats(device)


def memory_allocated(device=None):
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def memory_cached(device=None):
    return memory_reserved(device)


def max_memory_cached(device=None):
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None):
    _C._reset_peak_memory_stats(_idx(device))


def reset_max_memory_allocated(device=None):
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    _C._reset_accumulated_memory_stats(_idx(device))


def empty_cache():
    if _C._cuda_is_initialized():
        _C._empty_cache()


def _format_size(sz, pref_sz):
    prefixes = ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_sz < 768 * 1024:
            break
        prefix = new_prefix
        sz //= 1024
        pref_sz /= 1024
    return "{:6d} {}".format(sz, prefix)


def _format_count(cnt, pref_cnt):
    prefixes = [" ", "K", "M"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_cnt < 750 * 1000:
            break
        prefix = new_prefix
        cnt //= 1000
        pref_cnt /= 1000
    return "{:7d} {} ".format(cnt, prefix)


def memory_summary(device=None, abbreviated=False):
    """The table PyTorch prints, line for line (torch/cuda/memory.py)."""
    device = _idx(device)
    stats = memory_stats(device=device)
    if not stats:
        stats = _C._memory_stats(device) if _C._cuda_is_initialized() else {}
    stats = {k: stats.get(k, 0) for k in stats}

    def get(k):
        return stats.get(k, 0)

    metrics_to_display = [
        ("allocated_bytes", "Allocated memory", _format_size),
        ("active_bytes", "Active memory", _format_size),
        ("requested_bytes", "Requested memory", _format_size),
        ("reserved_bytes", "GPU reserved memory", _format_size),
        ("inactive_split_bytes", "Non-releasable memory", _format_size),
        ("allocation", "Allocations", _format_count),
        ("active", "Active allocs", _format_count),
        ("segment", "GPU reserved segments", _format_count),
        ("inactive_split", "Non-releasable allocs", _format_count),
    ]
    lines = []
    lines.append("=" * 75)
    lines.append(" {_:16} PyTorch CUDA memory summary, device ID {device:<17d} ")
    lines.append("-" * 75)
    lines.append("  {_:9} CUDA OOMs: {num_ooms:<12d} | {_:6} cudaMalloc retries: {num_alloc_retries:<8d}  ")
    lines.append("=" * 75)
    lines.append("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ")
    for metric_key, metric_name, formatter in metrics_to_display:
        lines.append("-" * 75)
        submetrics = [("all", metric_name)]
        if not abbreviated:
            submetrics.append(("large_pool", "      from large pool"))
            submetrics.append(("small_pool", "      from small pool"))
        prefvals = None
        for submetric_key, submetric_name in submetrics:
            prefix = metric_key + "." + submetric_key + "."
            vals = [get(prefix + k) for k in ("current", "peak", "allocated", "freed")]
            if prefvals is None:
                prefvals = vals
            lines.append(" {:<21} | {} | {} | {} | {} ".format(
                submetric_name, *(formatter(v, p) for v, p in zip(vals, prefvals))))
    for metric_key, metric_name in (("oversize_allocations", "Oversize allocations"),
                                    ("oversize_segments", "Oversize GPU segments")):
        lines.append("-" * 75)
        prefix = metric_key + "."
        vals = [get(prefix + k) for k in ("current", "peak", "allocated", "freed")]
        lines.append(" {:<21} | {} | {} | {} | {} ".format(
            metric_name, *(_format_count(v, v) for v in vals)))
    lines.append("=" * 75)
    fmt_dict = {"_": "", "device": device, "num_ooms": get("num_ooms"),
                "num_alloc_retries": get("num_alloc_retries")}
    return "|" + "|\n|".join(lines).format(**fmt_dict) + "|\n"


def memory_snapshot():
    return []


def set_per_process_memory_fraction(fraction, device=None):
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    _C._set_memory_fraction(fraction, _idx(device))


def mem_get_info(device=None):
    return _C._mem_get_info(_idx(device))


def caching_allocator_alloc(size, device=None, stream=None):
    raise NotImplementedError("caching_allocator_alloc is not supported by Tensorscope yet")


def caching_allocator_delete(mem_ptr):
    raise NotImplementedError("caching_allocator_delete is not supported by Tensorscope yet")


def list_gpu_processes(device=None):
    return "GPU:%d\nno processes are running" % _idx(device)


_history = {"enabled": None}


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=9223372036854775807,
                           device=None):
    _history["enabled"] = enabled


def _snapshot(device=None):
    return {"segments": memory_snapshot(), "device_traces": []}


def _dump_snapshot(filename="dump_snapshot.pickle"):
    import pickle
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)
