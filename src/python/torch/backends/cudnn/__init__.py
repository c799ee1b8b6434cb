"""torch.backends.cudnn: cuDNN's flags, with PyTorch's defaults and checks
(state only: see torch.backends)."""

import contextlib
import sys
import types

import torch
from torch import _unmodeled

__getattr__ = _unmodeled.module_getattr(__name__)

# PyTorch's setter names, as its TypeErrors say them (allow_tf32's really
# is "cublas" in PyTorch's message)
_SETTERS = {
    "enabled": "set_enabled_cudnn",
    "benchmark": "set_benchmark_cudnn",
    "deterministic": "set_deterministic_cudnn",
    "allow_tf32": "set_allow_tf32_cublas",
}
_flags = {"enabled": True, "benchmark": False, "deterministic": False, "allow_tf32": True}


def _flag(name):
    def get(self):
        return _flags[name]

    def set(self, value):
        _flags[name] = torch.backends._check_bool(_SETTERS[name], value)
    return property(get, set)


class _CudnnModule(types.ModuleType):
    enabled = _flag("enabled")
    benchmark = _flag("benchmark")
    deterministic = _flag("deterministic")
    allow_tf32 = _flag("allow_tf32")


# Tensorscope's kernels are its own, not cuDNN's: it is not available, as
# on a PyTorch build without it (version() is then None).
def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True):
    saved = dict(_flags)
    mod = sys.modules[__name__]
    mod.enabled, mod.benchmark = enabled, benchmark
    mod.deterministic, mod.allow_tf32 = deterministic, allow_tf32
    try:
        yield
    finally:
        _flags.update(saved)


sys.modules[__name__].__class__ = _CudnnModule
