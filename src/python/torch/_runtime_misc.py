"""Small torch-level functions scripts call in passing: thread counts,
is_nonzero, typename, is_storage, asarray, the deterministic debug mode,
set_flush_denormal, the layouts and Tensor.new."""

import os

import torch
from torch import Tensor
from torch._memory_format import _TorchConstant

# Thread counts are recorded and reported; the simulator's kernels and
# their timing do not depend on them (PyTorch's default: the host's cores).
_threads = {"intra": os.cpu_count() or 1, "interop": os.cpu_count() or 1}


def set_num_threads(n):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError("set_num_threads(): argument 'int' (position 1) must be int, not %s" % type(n).__name__)
    if n <= 0:
        raise RuntimeError("Number of threads must be positive")
    _threads["intra"] = n


def get_num_threads():
    return _threads["intra"]


def set_num_interop_threads(n):
    if n <= 0:
        raise RuntimeError("Number of inter-op threads must be positive")
    _threads["interop"] = n


def get_num_interop_threads():
    return _threads["interop"]


def is_nonzero(input):
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def typename(o):
    if isinstance(o, Tensor):
        return o.type()
    module = getattr(o, "__module__", "") or ""
    if module in ("builtins", "__builtin__"):
        module = ""
    else:
        module += "."
    name = getattr(o, "__qualname__", None) or getattr(o, "__name__", None) or type(o).__name__
    if not hasattr(o, "__qualname__") and not hasattr(o, "__name__"):
        module = type(o).__module__ + "." if type(o).__module__ != "builtins" else ""
    return module + name


def is_storage(obj):
    from torch import storage
    return isinstance(obj, (storage.UntypedStorage, storage.TypedStorage)) if hasattr(storage, "TypedStorage") \
        else isinstance(obj, storage.UntypedStorage)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    if isinstance(obj, Tensor):
        t = obj.to(device=device, dtype=dtype) if (device is not None or dtype is not None) else obj
        if copy and t is obj:
            t = t.clone()
    else:
        t = torch.as_tensor(obj, dtype=dtype, device=device)
        if copy and t is not obj:
            t = t.clone() if torch._numpy.is_ndarray(obj) else t
    if copy is False and isinstance(obj, Tensor) and t is not obj:
        raise ValueError("can't alias tensor from device '%s' to '%s'." % (obj.device, t.device))
    return t.requires_grad_(requires_grad) if requires_grad else t


_debug_mode = {"value": 0}
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               + debug_mode)
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got %s" % debug_mode)
    torch.use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)
    _debug_mode["value"] = debug_mode


def get_deterministic_debug_mode():
    if not torch.are_deterministic_algorithms_enabled():
        return 0
    return 1 if torch.is_deterministic_algorithms_warn_only_enabled() else 2


def set_flush_denormal(mode):
    # False: "not supported", so nothing changes (Tensorscope's kernels
    # keep IEEE denormals), which is PyTorch's answer where it cannot
    return False


class layout(_TorchConstant):
    __slots__ = ()


_LAYOUTS = {name: layout(name) for name in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
                                            "sparse_bsc", "_mkldnn")}


def _new(self, *args, **kwargs):
    """The legacy constructor: sizes give an uninitialized tensor, data a
    copy, of self's dtype and device."""
    options = dict(dtype=self.dtype, device=kwargs.pop("device", self.device))
    if kwargs:
        raise TypeError("new() received an invalid combination of arguments")
    if not args:
        return torch.empty(0, **options)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0].detach()
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not isinstance(args[0], torch.Size):
        return torch.tensor(args[0], **options)
    return torch.empty(*args, **options)


def _install():
    for name, obj in _LAYOUTS.items():
        setattr(torch, name, obj)
    torch.layout = layout
    Tensor.layout = property(lambda self: _LAYOUTS["strided"])
    Tensor.new = _new
    for name in ("set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
                 "is_nonzero", "typename", "is_storage", "asarray", "set_deterministic_debug_mode",
                 "get_deterministic_debug_mode", "set_flush_denormal"):
        setattr(torch, name, globals()[name])
    Tensor.is_nonzero = is_nonzero
