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
