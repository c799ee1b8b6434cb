"""torch.utils.data._utils.pin_memory (upstream: the pin-memory thread's helper)."""

import collections.abc

import torch


def pin_memory(data, device=None):
    if isinstance(data, torch.Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: pin_memory(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(pin_memory(s) for s in data))
    if isinstance(data, tuple):
        return tuple(pin_memory(s) for s in data)
    if isinstance(data, collections.abc.Sequence):
        return [pin_memory(s) for s in data]
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
