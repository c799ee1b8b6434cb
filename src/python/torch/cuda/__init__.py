"""torch.cuda over Tensorscope's simulated devices."""

import os  # noqa: F401  (seed scripts call torch.cuda.os.cpu_count())

import torch
from torch import _C, _unmodeled

from . import _sanitizer, comm, graphs, memory, nvtx, random  # noqa: F401
from .graphs import (CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing,  # noqa: F401
                     make_graphed_callables)
from .memory import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .streams import Event, ExternalStream, Stream  # noqa: F401

OutOfMemoryError = _C.OutOfMemoryError


def is_available():
    return _C._cuda_device_count() > 0


def is_initialized():
    return _C._cuda_is_initialized()


def init():
    _C._cuda_init()


def _lazy_init():
    _C._cuda_init()


def device_count():
    return _C._cuda_device_count()


def current_device():
    return _C._cuda_current_device()


def _get_device_index(device, optional=False, allow_cpu=False):
    """torch/cuda/_utils.py's _get_device_index: an int passes through; a
    device without an index means the current device only when optional."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if allow_cpu:
            if device.type not in ("cuda", "cpu"):
                raise ValueError("Expected a cuda or cpu device, but got: {}".format(device))
        elif device.type != "cuda":
            raise ValueError("Expected a cuda device, but got: {}".format(device))
    if isinstance(device, _device_ctx):
        return device.idx
    idx = None
    if isinstance(device, torch.device):
        idx = -1 if device.type == "cpu" else device.index
    if idx is None:
        if optional:
            return current_device()
        raise ValueError("Expected a torch.device with a specified index or an integer, but got:{}".format(device))
    return idx


def set_device(device):
    idx = _get_device_index(device)
    if idx >= 0:
        _C._cuda_set_device(idx)


class device:
    """Context manager that changes the selected device."""

    def __init__(self, device):
        self.idx = _get_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        # PyTorch's device.__enter__ returns None, so `with device(1) as d` binds None.
        if self.idx == -1:
            return None
        self.prev_idx = current_device()
        if self.prev_idx != self.idx:
            _C._cuda_set_device(self.idx)
        return None

    def __exit__(self, *exc):
        if self.prev_idx != -1 and self.prev_idx != self.idx:
            _C._cuda_set_device(self.prev_idx)
        return False


_device_ctx = device


class device_of(device):
    def __init__(self, obj):
        idx = obj.get_device() if obj.is_cuda else -1
        super().__init__(idx)


# L2 cache sizes by device name (cudaDeviceProp.l2CacheSize, bytes).
_L2_CACHE_SIZE = {
    "NVIDIA H100 80GB HBM3": 50 * 1024 * 1024,
    "NVIDIA GeForce GTX 1080 Ti": 2883584,
}


class _CUuuid:
    """cudaDeviceProp.uuid: prints as 8-4-4-4-12 hex digits."""

    def __init__(self, raw):
        self.bytes = raw

    def __str__(self):
        h = self.bytes.hex()
        return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])

    __repr__ = __str__


class _CudaDeviceProperties:
    def __init__(self, d, index):
        self.__dict__.update(d)
        self.is_multi_gpu_board = False
        self.is_integrated = False
        self.regs_per_multiprocessor = 65536
        self.L2_cache_size = _L2_CACHE_SIZE.get(self.name, 0)
        # A fixed, made-up UUID per device (real ones are random per board).
        self.uuid = _CUuuid(bytes.fromhex("7e5c0a1d2f3b4c5d8e9f%012x" % (index + 1)))

    def __repr__(self):
        # PyTorch 2.5's format (torch/csrc/cuda/Module.cpp).
        return ("_CudaDeviceProperties(name='%s', major=%d, minor=%d, total_memory=%dMB, "
                "multi_processor_count=%d, uuid=%s, L2_cache_size=%dMB)"
                % (self.name, self.major, self.minor, self.total_memory // (1024 * 1024),
                   self.multi_processor_count, self.uuid, self.L2_cache_size // (1024 * 1024)))


_DeviceProperties = _CudaDeviceProperties


def get_device_properties(device=None):
    _C._cuda_init()
    idx = _get_device_index(device, optional=True)
    if idx < 0 or idx >= device_count():
        raise AssertionError("Invalid device id")
    return _CudaDeviceProperties(_C._cuda_get_device_properties(idx), idx)


def get_device_name(device=None):
    return get_device_properties(device).name


def get_device_capability(device=None):
    p = get_device_properties(device)
    return (p.major, p.minor)


def get_arch_list():
    return ["sm_90"]


def current_blas_handle():
    _C._cuda_init()
    return 0x55d4c7000000 + current_device() * 0x1000


def synchronize(device=None):
    _C._cuda_init()
    _C._cuda_synchronize(_get_device_index(device, optional=True))


def _sleep(cycles):
    """Spin the current stream for a number of GPU clock cycles (one
    thread), as PyTorch's stream tests do to keep a stream busy."""
    _C._cuda_init()
    _C._cuda_sleep(int(cycles))


def ipc_collect():
    _C._cuda_init()


def current_stream(device=None):
    idx = _get_device_index(device, optional=True)
    return Stream._from_id(_C._stream_current(idx))


def default_stream(device=None):
    idx = _get_device_index(device, optional=True)
    return Stream._from_id(_C._stream_default(idx))


def set_stream(stream):
    if stream is None:
        return
    _C._stream_set(stream._id)


class StreamContext:
    """torch.cuda.stream(s): makes s current on its device (and selects it)."""

    def __init__(self, stream):
        self.stream = stream
        self.src_prev_stream = None
        self.dst_prev_stream = None

    def __enter__(self):
        cur = self.stream
        if cur is None:
            return
        self.src_prev_stream = current_stream()
        if self.src_prev_stream.device != cur.device:
            with device(cur.device):
                self.dst_prev_stream = current_stream(cur.device)
        self._prev_device = current_device()
        if cur.device_index != self._prev_device:
            _C._cuda_set_device(cur.device_index)
        _C._stream_set(cur._id)

    def __exit__(self, *exc):
        cur = self.stream
        if cur is None:
            return False
        if self.dst_prev_stream is not None:
            _C._stream_set(self.dst_prev_stream._id)
        _C._cuda_set_device(self._prev_device)
        _C._stream_set(self.src_prev_stream._id)
        return False


def stream(stream):
    return StreamContext(stream)


def get_sync_debug_mode():
    return 0


def set_sync_debug_mode(debug_mode):
    """Only "default" (0): warning or failing on synchronizing calls is not
    modeled."""
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
        debug_mode = names[debug_mode]
    if debug_mode != 0:
        raise _unmodeled.unsupported("torch.cuda.set_sync_debug_mode(%r)" % debug_mode)


def is_bf16_supported():
    return True


from .. import cuda as _self  # noqa: E402

_self.nvtx = nvtx

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
