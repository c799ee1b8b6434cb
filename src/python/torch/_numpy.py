"""NumPy interop: torch.from_numpy, Tensor.numpy(), np.asarray(tensor),
torch.as_tensor and torch.tensor of arrays, with PyTorch's checks and
messages. A CPU tensor and an array made from each other share their bytes
(torch._C's HostBuffer and _from_host_buffer, ts-py-numpy.c). NumPy is
imported only when a script uses it."""

import sys
import warnings

import torch
from torch import _C

# numpy dtype name -> torch dtype (PyTorch's list)
_FROM_NUMPY = {
    "float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
    "complex64": torch.complex64, "complex128": torch.complex128,
    "int64": torch.int64, "int32": torch.int32, "int16": torch.int16, "int8": torch.int8,
    "uint8": torch.uint8, "bool": torch.bool,
}
_warned_not_writable = False


def _np():
    import numpy
    return numpy


def is_ndarray(obj):
    np = sys.modules.get("numpy")  # no array without NumPy imported
    # a NumPy whose import failed half way (one built for another Python)
    # has no ndarray: nothing is one of its arrays
    ndarray = getattr(np, "ndarray", None) if np is not None else None
    return ndarray is not None and isinstance(obj, ndarray)


def from_numpy(arr):
    global _warned_not_writable
    np = _np()
    if not isinstance(arr, np.ndarray):
        raise TypeError("expected np.ndarray (got %s)" % _type_name(arr))
    name = arr.dtype.name
    if name not in _FROM_NUMPY:
        raise TypeError("can't convert np.ndarray of type numpy.%s. The only supported types are: float64, "
                        "float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."
                        % arr.dtype.type.__name__)
    if not arr.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion "
                         "between byte orders is currently not supported.")
    if any(s < 0 for s in arr.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making "
                         "a copy of your array  with array.copy().) ")
    if any(s % arr.itemsize for s in arr.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy "
                         "array to reallocate the memory.")
    if not arr.flags.writeable and not _warned_not_writable:
        _warned_not_writable = True
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable "
                      "tensors. This means writing to this tensor will result in undefined behavior. You may "
                      "want to copy the array to protect its data or make it writable before converting it "
                      "to a tensor. This type of warning will be suppressed for the rest of this program. "
                      "(Triggered internally at  ./torch/csrc/utils/tensor_numpy.cpp:199.)",
                      UserWarning, stacklevel=3)
    return _C._from_host_buffer(arr, tuple(arr.shape), tuple(s // arr.itemsize for s in arr.strides),
                                _FROM_NUMPY[name])


def _type_name(obj):
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else t.__module__ + "." + t.__name__


def to_numpy(t, force=False):
    """Tensor.numpy(): an array over the tensor's bytes."""
    if force:
        t = t.detach().cpu()
    elif t.is_cuda:
        raise TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                        "host memory first." % t.device)
    elif t.requires_grad:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                           "instead.")
    if t.dtype is torch.bfloat16:
        raise TypeError("Got unsupported ScalarType BFloat16")
    return _np().asarray(_C._host_buffer(t))


def as_tensor(arr, dtype=None, device=None):
    """torch.as_tensor(ndarray): the array's bytes when neither the dtype nor
    the device changes."""
    return from_numpy(arr).to(device=torch._factory_device(device), dtype=dtype)


def tensor(arr, dtype=None, device=None):
    """torch.tensor(ndarray): always a copy (of an array from_numpy takes:
    PyTorch refuses negative strides here too)."""
    return from_numpy(arr).clone().to(device=torch._factory_device(device), dtype=dtype)
