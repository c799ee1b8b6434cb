"""Storages: the memory behind tensors (torch.UntypedStorage), and the
typed wrappers PyTorch's files name (torch.storage.TypedStorage and the
legacy torch.FloatStorage, torch.LongStorage, ...).

A storage object here holds a tensor over the storage; the core keeps
the bytes (torch._C._storage_bytes, _storage_view, ts-py-storage.c).
torch.save and torch.load (torch/serialization.py) are their main users.
"""

import torch
from torch import _C, _unmodeled

__all__ = ["UntypedStorage", "TypedStorage"]


class _StorageBase:
    """What both storage classes answer from the tensor they hold."""

    def data_ptr(self):
        return self._tensor()._storage_ptr()

    def nbytes(self):
        return self._tensor()._storage_nbytes()

    def size(self):
        return self.nbytes() // self.element_size()

    def __len__(self):
        return self.size()

    @property
    def device(self):
        return self._tensor().device

    @property
    def is_cuda(self):
        return self._tensor().is_cuda


class UntypedStorage(_StorageBase):
    """torch.UntypedStorage: a run of bytes on one device."""

    def __init__(self, size=0, *, device=None):
        if not isinstance(size, int) or isinstance(size, bool):
            raise _unmodeled.unsupported("torch.UntypedStorage(%s)" % type(size).__name__,
                                         "only UntypedStorage(nbytes, device=...) is")
        self._t = torch.empty(size, dtype=torch.uint8, device=device)

    @classmethod
    def _from_tensor(cls, t):
        self = object.__new__(cls)
        self._t = t
        return self

    def _bytes_tensor(self):
        return _C._storage_view(self._t, torch.uint8, (self.nbytes(),), (1,), 0)

    def _key(self):
        return _C._storage_key(self._t)

    def _to_bytes(self):
        return _C._storage_bytes(self._t)

    def _view(self, dtype, size, stride, offset):
        return _C._storage_view(self._t, dtype, tuple(size), tuple(stride), offset)

    def _tensor(self):
        return self._t

    def element_size(self):
        return 1

    def to(self, *, device=None, non_blocking=False):
        device = torch.device(device) if device is not None else self.device
        if device.type == "cuda" and device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
        if device == self.device:
            return self
        return UntypedStorage._from_tensor(self._bytes_tensor().to(device, non_blocking=non_blocking))

    def cpu(self):
        return self.to(device="cpu")

    def cuda(self, device=None, non_blocking=False):
        if device is None:
            device = torch.cuda.current_device()
        device = torch.device(device) if not isinstance(device, int) else torch.device("cuda", device)
        if device.type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        return self.to(device=device, non_blocking=non_blocking)

    def tolist(self):
        return list(self._to_bytes())

    def __repr__(self):
        return " " + "\n ".join(str(b) for b in self._to_bytes()) + \
            "\n[torch.storage.UntypedStorage(device=%s) of size %d]" % (self.device, self.nbytes())

    def __reduce__(self):
        raise _unmodeled.unsupported("pickling a storage outside torch.save", "use torch.save")


class TypedStorage(_StorageBase):
    """torch.storage.TypedStorage: an untyped storage read as elements of a
    dtype. PyTorch 2 deprecates it; its files still name it (FloatStorage)."""

    is_sparse = False

    def __init__(self, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        if args or wrap_storage is None or dtype is None:
            raise _unmodeled.unsupported("torch.storage.TypedStorage(...)",
                                         "only TypedStorage(wrap_storage=..., dtype=...) is")
        self._untyped_storage = wrap_storage
        self.dtype = dtype

    def untyped(self):
        return self._untyped_storage

    def _tensor(self):
        return self._untyped_storage._t

    def element_size(self):
        return self.dtype.itemsize

    def _pickle_storage_type(self):
        return _DTYPE_TO_STORAGE[self.dtype]

    pickle_storage_type = _pickle_storage_type

    def cpu(self):
        return TypedStorage(wrap_storage=self._untyped_storage.cpu(), dtype=self.dtype)

    def cuda(self, device=None, non_blocking=False):
        return TypedStorage(wrap_storage=self._untyped_storage.cuda(device, non_blocking), dtype=self.dtype)

    def __reduce__(self):
        raise _unmodeled.unsupported("pickling a storage outside torch.save", "use torch.save")


# The legacy classes' names, as PyTorch pickles a storage's type.
_DTYPE_TO_STORAGE = {
    torch.float64: "DoubleStorage", torch.float32: "FloatStorage", torch.float16: "HalfStorage",
    torch.bfloat16: "BFloat16Storage", torch.int64: "LongStorage", torch.int32: "IntStorage",
    torch.int16: "ShortStorage", torch.int8: "CharStorage", torch.uint8: "ByteStorage",
    torch.bool: "BoolStorage",
}


def _dtype_to_storage_type_map():
    return dict(_DTYPE_TO_STORAGE)


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype is cls.dtype


def _legacy_storage_class(dtype, name, module):
    """torch.FloatStorage and its kin: what files name; making one is not
    modeled (a tensor's storage is reached with untyped_storage())."""
    def __new__(cls, *args, **kwargs):
        raise _unmodeled.unsupported("%s.%s(...)" % (module, name),
                                     "the legacy storage classes only name a dtype in saved files")
    return _LegacyStorageMeta(name, (TypedStorage,), {"__new__": __new__, "dtype": dtype, "__module__": module,
                                                        "__qualname__": name})


def _install():
    """torch.FloatStorage, ..., torch.cuda.FloatStorage, ...; torch.UntypedStorage, torch.TypedStorage."""
    classes = []
    for dtype, name in _DTYPE_TO_STORAGE.items():
        for module in (torch, torch.cuda):
            cls = _legacy_storage_class(dtype, name, module.__name__)
            setattr(module, name, cls)
            classes.append(cls)
    torch.UntypedStorage = UntypedStorage
    torch.TypedStorage = TypedStorage
    return classes


_storage_classes = _install()
