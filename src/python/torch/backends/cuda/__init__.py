"""torch.backends.cuda: cuBLAS's matmul flags. allow_tf32 is the float32
matmul precision seen as a bool, as in PyTorch: True is "high", False
"highest"; the simulator times float32 matmuls at the GPU's TF32 rate
when it is not "highest" (docs/simulation-model.md). The reduced
precision reduction flags are state only."""

import torch
from torch import _unmodeled

__getattr__ = _unmodeled.module_getattr(__name__)

# torch.get_float32_matmul_precision(); PyTorch's default
_float32_matmul_precision = "highest"


def _set_float32_matmul_precision(precision):
    """The one place the precision changes: the core's matmul cost reads
    it (TF32 tensor-core rate unless "highest")."""
    global _float32_matmul_precision
    _float32_matmul_precision = precision
    torch._C._set_float32_matmul_tf32(precision != "highest")


def _check(setter, value):
    return torch.backends._check_bool(setter, value)


class cuBLASModule:
    _setters = {
        "allow_fp16_reduced_precision_reduction": "set_allow_fp16_reduction_cublas",
        "allow_bf16_reduced_precision_reduction": "set_allow_bf16_reduction_cublas",
    }

    def __init__(self):
        object.__setattr__(self, "_reduced", {name: True for name in self._setters})

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _float32_matmul_precision != "highest"
        if name in self._setters:
            return self._reduced[name]
        raise AssertionError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _set_float32_matmul_precision("high" if _check("set_allow_tf32_cublas", value) else "highest")
        elif name in self._setters:
            self._reduced[name] = _check(self._setters[name], value)
        else:
            raise AssertionError("Unknown attribute " + name)


matmul = cuBLASModule()


def is_built():
    """Tensorscope models CUDA: its torch is a CUDA build."""
    return True


# cuFFT's plan caches, as PyTorch 1.13's torch/backends/cuda: one per
# device, each an LRU of plans (ts-ops-fft.c models what a plan is keyed by)
def _cufft_get_plan_cache_size(device_index):
    return torch._C._cufft_plan_cache(device_index, "size")


def _cufft_get_plan_cache_max_size(device_index):
    return torch._C._cufft_plan_cache(device_index, "max_size")


def _cufft_set_plan_cache_max_size(device_index, max_size):
    torch._C._cufft_plan_cache(device_index, "set_max_size", max_size)


def _cufft_clear_plan_cache(device_index):
    torch._C._cufft_plan_cache(device_index, "clear")


class cuFFTPlanCacheAttrContextProp(object):
    # the getter and setter take the calling object's device_index first
    def __init__(self, getter, setter):
        self.getter = getter
        self.setter = setter

    def __get__(self, obj, objtype):
        return self.getter(obj.device_index)

    def __set__(self, obj, val):
        if isinstance(self.setter, str):
            raise RuntimeError(self.setter)
        self.setter(obj.device_index, val)


class cuFFTPlanCache(object):
    """The plan cache of one device: size, max_size and clear()."""

    def __init__(self, device_index):
        self.device_index = device_index

    size = cuFFTPlanCacheAttrContextProp(
        _cufft_get_plan_cache_size,
        '.size is a read-only property showing the number of plans currently in the '
        'cache. To change the cache capacity, set cufft_plan_cache.max_size.')

    max_size = cuFFTPlanCacheAttrContextProp(_cufft_get_plan_cache_max_size,
                                             _cufft_set_plan_cache_max_size)

    def clear(self):
        return _cufft_clear_plan_cache(self.device_index)


class cuFFTPlanCacheManager(object):
    """All devices' caches: indexed by a device, or used directly as the
    current device's."""

    __initialized = False

    def __init__(self):
        self.caches = []
        self.__initialized = True

    def __getitem__(self, device):
        index = torch.cuda._get_device_index(device)
        if index < 0 or index >= torch.cuda.device_count():
            raise RuntimeError(
                ("cufft_plan_cache: expected 0 <= device index < {}, but got "
                 "device with index {}").format(torch.cuda.device_count(), index))
        if len(self.caches) == 0:
            self.caches.extend(cuFFTPlanCache(index) for index in range(torch.cuda.device_count()))
        return self.caches[index]

    def __getattr__(self, name):
        return getattr(self[torch.cuda.current_device()], name)

    def __setattr__(self, name, value):
        if self.__initialized:
            return setattr(self[torch.cuda.current_device()], name, value)
        return super(cuFFTPlanCacheManager, self).__setattr__(name, value)


cufft_plan_cache = cuFFTPlanCacheManager()
