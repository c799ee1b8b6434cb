"""torch.save and torch.load in PyTorch's file format.

A file is the zip archive PyTorch writes since 1.6 (torch/serialization.py
and caffe2/serialize/inline_container.cc upstream): under one top folder
(the file's stem for a path, "archive" for a file object), data.pkl is the
object pickled with protocol 2, each storage referred to by a persistent id
('storage', torch.FloatStorage, key, location, numel) and each tensor
rebuilt by torch._utils._rebuild_tensor_v2; data/KEY holds a storage's raw
little-endian bytes, aligned on 64 bytes by an extra field of 'Z's;
"version" holds "3\\n". The archive is written byte for byte as PyTorch
1.13 writes it (its zip writer is miniz's, with a data descriptor after
each record and zip64 end records), so files go both ways.

torch.load follows PyTorch >= 2.6: weights_only defaults to True, and that
unpickler builds only tensors, containers, numbers, strings and the torch
types a checkpoint holds, refusing any other global with PyTorch's message.
Like PyTorch's, it is Python's unpickler with globals, REDUCE, NEWOBJ,
BUILD and APPEND restricted (it also keeps the opcodes of protocols 3 to 5
that build nothing, which PyTorch 2.6's own interpreter lacks).
"""

import io
import os
import pickle
import re
import struct
import zipfile
import zlib
from contextlib import contextmanager

import torch
from torch import _unmodeled, _utils
from torch.storage import TypedStorage, UntypedStorage, _DTYPE_TO_STORAGE
from torch._weights_only_unpickler import (  # noqa: F401  (torch.serialization's names)
    Unpickler as _WeightsOnlyUnpickler, _allowed_globals, _user_allowed_globals, add_safe_globals,
    clear_safe_globals, get_safe_globals, safe_globals)

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint", "default_restore_location", "location_tag", "StorageType"]

DEFAULT_PROTOCOL = 2
_VERSION = b"3\n"            # the format version PyTorch 1.13 writes
_MAX_VERSION = 10            # caffe2's kMaxSupportedFileFormatVersion
_ALIGNMENT = 64              # storages start on a 64-byte boundary
_LEGACY_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19."   # pickled 0x1950a86a20f9469cfc6c
_STORAGE_DTYPES = {name: dtype for dtype, name in _DTYPE_TO_STORAGE.items()}


class StorageType:
    """What a pickled legacy storage class (torch.FloatStorage) loads as:
    the dtype it names."""

    def __init__(self, name):
        self._dtype = _STORAGE_DTYPES[name]

    @property
    def dtype(self):
        return self._dtype

    def __str__(self):
        return "StorageType(dtype=%s)" % self.dtype

    __repr__ = __str__


# Writing --------------------------------------------------------------------


class _ZipWriter:
    """PyTorch's PyTorchStreamWriter (miniz with zip64 on): stored records,
    each with a local header padded so its data starts on a 64-byte
    boundary and a data descriptor after its data, then the central
    directory and zip64 end records. A record of 4 GiB or more, or one that
    starts past 4 GiB, carries a zip64 extra field with its sizes or offset,
    in its local header (before the padding) and in the central directory."""

    def __init__(self, stream, archive_name):
        self._stream = stream
        self._prefix = archive_name.encode("utf-8") + b"/"
        self._offset = 0
        self._entries = []

    def _write(self, data):
        self._stream.write(data)
        self._offset += len(data)

    def write_record(self, name, data):
        name = self._prefix + name.encode("utf-8")
        size = len(data)
        big, far = size >= 0xFFFFFFFF, self._offset >= 0xFFFFFFFF
        zip64 = self._zip64_extra(size if big else None, self._offset if far else None)
        start = self._offset + 30 + len(name) + len(zip64) + 4
        pad = -start % _ALIGNMENT
        # the local header's copy has a compressed size of 0: miniz writes
        # it before it has one
        extra = self._zip64_extra(size if big else None, self._offset if far else None, 0) + \
            b"FB" + struct.pack("<H", pad) + b"Z" * pad
        crc = zlib.crc32(data)
        # miniz writes an empty record without the data descriptor
        flags = 0x0808 if size else 0x0800
        self._entries.append((name, flags, crc, size, self._offset, zip64))
        self._write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0, len(name), len(extra)))
        self._write(name + extra)
        if size:
            self._write(data)
            sizes = struct.pack("<QQ" if zip64 else "<II", size, size)
            self._write(struct.pack("<II", 0x08074B50, crc) + sizes)

    @staticmethod
    def _zip64_extra(size, offset, compressed=None):
        if size is None and offset is None:
            return b""
        fields = b"" if size is None else struct.pack("<QQ", size, size if compressed is None else compressed)
        fields += b"" if offset is None else struct.pack("<Q", offset)
        return struct.pack("<HH", 1, len(fields)) + fields

    def finish(self):
        cd_offset = self._offset
        for name, flags, crc, size, offset, zip64 in self._entries:
            size32 = min(size, 0xFFFFFFFF)
            self._write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, 0, flags, 0, 0, 0, crc, size32, size32,
                                    len(name), len(zip64), 0, 0, 0, 0, min(offset, 0xFFFFFFFF)) + name + zip64)
        cd_size = self._offset - cd_offset
        n = len(self._entries)
        eocd64 = self._offset
        self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 0x2D, 0, 0, n, n, cd_size, cd_offset))
        self._write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF),
                                min(cd_size, 0xFFFFFFFF), min(cd_offset, 0xFFFFFFFF), 0))


def _archive_name(path):
    """The top folder PyTorch names for a path: its last component less
    the last extension (PyTorchStreamWriter's basename)."""
    name = os.fsdecode(path)
    base = re.split(r"[/\\]", name)[-1]
    dot = base.rfind(".")
    return base if dot < 0 else base[:dot]


def location_tag(storage):
    if storage.device.type == "cpu":
        return "cpu"
    if storage.device.type == "cuda":
        return "cuda:" + str(storage.device.index)
    raise RuntimeError("don't know how to determine data location of " + "torch.storage." + type(storage).__qualname__)


def _refuse(obj):
    if isinstance(obj, torch.nn.Module):
        return _unmodeled.unsupported(
            "torch.save of a whole nn.Module (%s)" % type(obj).__name__,
            "PyTorch could not load Tensorscope's module classes; save its state_dict() instead: "
            "torch.save(model.state_dict(), f)")
    cls = type(obj)
    return _unmodeled.unsupported(
        "torch.save of a %s.%s object" % (cls.__module__, cls.__qualname__),
        "save its state_dict() if it has one, or tensors, containers and numbers")


def _reduce_tensor(t, cls):
    """What PyTorch's Tensor.__reduce_ex__ and Parameter.__reduce_ex__ return."""
    state = _utils._get_obj_state(t)
    if cls is torch.nn.Parameter:
        if not state:
            return (_utils._rebuild_parameter, (t.data, t.requires_grad, _utils._hooks_dict()))
        return (_utils._rebuild_parameter_with_state, (t.data, t.requires_grad, _utils._hooks_dict(), state))
    storage = TypedStorage(wrap_storage=UntypedStorage._from_tensor(t), dtype=t.dtype, _internal=True)
    args = (storage, t.storage_offset(), tuple(t.size()), t.stride(), t.requires_grad, _utils._hooks_dict())
    if cls is torch.Tensor and not state:
        return (_utils._rebuild_tensor_v2, args)
    return (torch._tensor._rebuild_from_type_v2, (_utils._rebuild_tensor_v2, cls, args, state))


def _fresh(s):
    # a new str object: PyTorch's device.__reduce__ makes one each time,
    # which the pickle memo does not share
    return s.encode().decode()


def _make_pickler(pickle_module, stream, protocol, storages):
    id_map = {}
    storage_dtypes = {}

    class Pickler(pickle_module.Pickler):
        def persistent_id(self, obj):
            if isinstance(obj, TypedStorage):
                storage, dtype = obj._untyped_storage, obj.dtype
                storage_type = getattr(torch, obj._pickle_storage_type())
                numel = obj.size()
            elif isinstance(obj, UntypedStorage):
                storage, dtype, storage_type, numel = obj, torch.uint8, UntypedStorage, obj.nbytes()
            else:
                return None
            ptr = (storage.device, storage.data_ptr())
            if ptr[1] != 0:
                if storage_dtypes.setdefault(ptr, dtype) is not dtype:
                    raise RuntimeError("Cannot save multiple tensors or storages that view the same data as "
                                       "different types")
            key = id_map.setdefault(storage._key(), str(len(id_map)))
            storages[key] = storage
            return ("storage", storage_type, key, location_tag(storage), numel)

        def reducer_override(self, obj):
            cls = type(obj)
            if isinstance(obj, torch.Tensor):
                return _reduce_tensor(obj, cls)
            if cls is torch.device:
                args = (_fresh(obj.type),) if obj.index is None else (_fresh(obj.type), obj.index)
                return (torch.device, args)
            if cls is torch.Size:
                return (torch.Size, (tuple(obj),))
            if not isinstance(obj, type) and cls is not torch.dtype and \
                    (cls.__module__ or "").split(".")[0] == "torch":
                raise _refuse(obj)
            return NotImplemented

    return Pickler(stream, protocol)


def _open_for_write(f):
    if isinstance(f, (str, bytes, os.PathLike)):
        return open(f, "wb"), _archive_name(f), True
    if not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    return f, "archive", False


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """torch.save: obj pickled into PyTorch's zip archive at f (a path or a
    binary file object). The archive is built before f is opened, so a
    refused object leaves no file behind."""
    if not _use_new_zipfile_serialization:
        raise _unmodeled.unsupported("torch.save(..., _use_new_zipfile_serialization=False)",
                                     "the legacy (PyTorch < 1.6) format is not written")
    storages = {}
    data_buf = io.BytesIO()
    _make_pickler(pickle_module, data_buf, pickle_protocol, storages).dump(obj)
    if storages and torch._C._no_data():
        # Writing zeros would make a file that loads and silently lies.
        raise RuntimeError("torch.save of tensors needs tensor values, and this run has none: it runs with "
                           "--no-data (TENSORSCOPE_NO_DATA=1), which models shapes, memory and time without "
                           "computing or storing values")
    stream, archive_name, owned = _open_for_write(f)
    try:
        writer = _ZipWriter(stream, archive_name)
        writer.write_record("data.pkl", data_buf.getvalue())
        for key in sorted(storages):
            writer.write_record("data/" + key, storages[key]._to_bytes())
        writer.write_record("version", _VERSION)
        writer.finish()
    finally:
        if owned:
            stream.close()


# Reading --------------------------------------------------------------------


class _ZipReader:
    """PyTorch's PyTorchStreamReader over a seekable binary stream: records
    under the first record's top folder. CRCs are not checked, as PyTorch
    does not (it can write files without them)."""

    def __init__(self, stream):
        self._stream = stream
        try:
            infos = zipfile.ZipFile(stream).infolist()
        except Exception as err:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: failed finding central "
                               "directory (%s)" % err) from None
        if not infos:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: the archive holds no records")
        first = infos[0].filename
        if "/" not in first:
            raise RuntimeError("file in archive is not in a subdirectory: " + first)
        prefix = first[:first.index("/") + 1]
        self._records = {i.filename[len(prefix):]: i for i in infos if i.filename.startswith(prefix)}
        self._check_version()
        # PyTorch 2 says which byte order the storages are in
        if self.has_record("byteorder") and self.get_record("byteorder", 16) != b"little":
            raise _unmodeled.unsupported("torch.load of storages in byte order %r" % self.get_record("byteorder", 16),
                                         "only little-endian files are read")

    def _check_version(self):
        name = ".data/version" if ".data/version" in self._records else "version"
        if name not in self._records:
            raise RuntimeError('Expected hasRecord("version") to be true, but got false.  (Could this error message '
                               'be improved?  If so, please report an enhancement request to PyTorch.)')
        text = self.get_record(name, 64)
        try:
            version = int(text.decode("ascii").strip())
        except (UnicodeDecodeError, ValueError):
            raise RuntimeError("PytorchStreamReader: the version record holds %r, not a number" % text) from None
        if version < 1 or version > _MAX_VERSION:
            raise RuntimeError("Attempted to read a PyTorch file with version %d, but the supported versions for "
                               "reading are 1 to %d." % (version, _MAX_VERSION))

    def has_record(self, name):
        return name in self._records

    def _info(self, name):
        info = self._records.get(name)
        if info is None:
            raise RuntimeError("PytorchStreamReader failed locating file %s: file not found" % name)
        return info

    def _seek_data(self, name, info):
        """Puts the stream at the record's first byte."""
        f = self._stream
        if info.header_offset < 0:
            raise RuntimeError("PytorchStreamReader failed reading file %s: bad local header offset" % name)
        f.seek(info.header_offset)
        header = f.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise RuntimeError("PytorchStreamReader failed reading file %s: bad local header" % name)
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        f.seek(info.header_offset + 30 + name_len + extra_len)

    def _truncated(self, name):
        return RuntimeError("PytorchStreamReader failed reading file %s: the archive is truncated" % name)

    def get_record(self, name, limit=None):
        """A record's bytes; limit: the most a record of this kind may hold,
        checked before anything is read."""
        info = self._info(name)
        if limit is not None and info.file_size > limit:
            raise RuntimeError("PytorchStreamReader: record %s holds %d bytes, more than the %d expected"
                               % (name, info.file_size, limit))
        self._seek_data(name, info)
        raw = self._stream.read(info.compress_size)
        if len(raw) != info.compress_size:
            raise self._truncated(name)
        if info.compress_type == zipfile.ZIP_STORED:
            data = raw
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            try:
                data = zlib.decompressobj(-15).decompress(raw, info.file_size)
            except zlib.error as err:
                raise RuntimeError("PytorchStreamReader failed reading file %s: %s" % (name, err)) from None
        else:
            raise RuntimeError("PytorchStreamReader failed reading file %s: compression method %d is not "
                               "supported" % (name, info.compress_type))
        if len(data) != info.file_size:
            raise RuntimeError("PytorchStreamReader failed reading file %s: it holds %d bytes, its header says %d"
                               % (name, len(data), info.file_size))
        return data

    def get_storage(self, name, nbytes, what):
        """A record as a new CPU storage of nbytes (a uint8 tensor over it);
        a stored record is read straight into the storage's memory."""
        info = self._info(name)
        if info.file_size != nbytes:
            raise RuntimeError("PytorchStreamReader: record %s holds %d bytes, its storage of %s needs %d"
                               % (name, info.file_size, what, nbytes))
        t = torch.empty(nbytes, dtype=torch.uint8)
        if nbytes == 0:
            return t
        dest = memoryview(torch._C._host_buffer(t))
        if info.compress_type != zipfile.ZIP_STORED:
            dest[:] = self.get_record(name)
            return t
        if info.compress_size != nbytes:
            raise RuntimeError("PytorchStreamReader failed reading file %s: a stored record of %d bytes has "
                               "%d in the archive" % (name, nbytes, info.compress_size))
        self._seek_data(name, info)
        if self._stream.readinto(dest) != nbytes:
            raise self._truncated(name)
        return t


def validate_cuda_device(location):
    device = torch.device(location)
    index = device.index if device.index is not None else torch.cuda.current_device()
    if not torch.cuda.is_available():
        raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                           "False. If you are running on a CPU-only machine, please use torch.load with "
                           "map_location=torch.device('cpu') to map your storages to the CPU.")
    count = torch.cuda.device_count()
    if index >= count:
        raise RuntimeError("Attempting to deserialize object on CUDA device %d but torch.cuda.device_count() is "
                           "%d. Please use torch.load with map_location to map your storages to an existing "
                           "device." % (index, count))
    return index


def default_restore_location(storage, location):
    if location == "cpu":
        return storage.cpu()
    if location.startswith("cuda"):
        return storage.cuda(validate_cuda_device(location))
    raise RuntimeError("don't know how to restore data location of %s (tagged with %s)"
                       % ("torch.storage." + type(storage).__qualname__, location))


def _restore_location(map_location):
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda storage, location: default_restore_location(storage, map_location.get(location, location))
    if isinstance(map_location, (str, bytes)):
        loc = map_location.decode("ascii") if isinstance(map_location, bytes) else map_location
        return lambda storage, location: default_restore_location(storage, loc)
    if isinstance(map_location, torch.device):
        return lambda storage, location: default_restore_location(storage, str(map_location))

    def restore(storage, location):
        result = map_location(storage, location)
        return default_restore_location(storage, location) if result is None else result
    return restore


def _decode(value, what):
    if isinstance(value, bytes):
        value = value.decode("ascii")
    if not isinstance(value, str):
        raise pickle.UnpicklingError("torch.load: a storage's %s must be a string, got %s"
                                     % (what, type(value).__name__))
    return value


def _persistent_loader(reader, map_location):
    restore = _restore_location(map_location)
    loaded = {}

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple) or len(saved_id) != 5 or _decode(saved_id[0], "tag") != "storage":
            raise pickle.UnpicklingError("torch.load: unknown persistent id %.100r (expected ('storage', type, key, "
                                         "location, numel))" % (saved_id,))
        storage_type, key, location, numel = saved_id[1:]
        key, location = _decode(key, "key"), _decode(location, "location")
        if storage_type is UntypedStorage:
            dtype = torch.uint8
        elif isinstance(storage_type, StorageType):
            dtype = storage_type.dtype
        else:
            raise pickle.UnpicklingError("torch.load: %.100r is not a storage type" % (storage_type,))
        if key in loaded:
            return loaded[key]
        if not isinstance(numel, int) or numel < 0:
            raise pickle.UnpicklingError("torch.load: storage %s has %r elements" % (key, numel))
        data = reader.get_storage("data/" + key, numel * dtype.itemsize, "%d %s" % (numel, dtype))
        storage = UntypedStorage._from_tensor(data)
        typed = TypedStorage(wrap_storage=restore(storage, location), dtype=dtype, _internal=True)
        loaded[key] = typed
        return typed

    return persistent_load


def _load(reader, map_location, unpickler_class, **pickle_load_args):
    unpickler = unpickler_class(io.BytesIO(reader.get_record("data.pkl")), **pickle_load_args)
    unpickler.persistent_load = _persistent_loader(reader, map_location)
    return unpickler.load()


def _unpickler_for(pickle_module):
    """PyTorch's UnpicklerWrapper: pickled legacy storage classes load as
    the dtype they name; other globals are looked up as pickle does."""
    class Unpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            if type(name) is str and "Storage" in name:
                try:
                    return StorageType(name)
                except KeyError:
                    pass
            if module == "torch.tensor":
                module = "torch._tensor"
            return super().find_class(module, name)
    return Unpickler


# weights_only ----------------------------------------------------------------

_UNSAFE_MESSAGE = ("Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can "
                   "result in arbitrary code execution. Do it only if you got the file from a trusted source.")
_DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
                 "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def _get_wo_message(message):
    """PyTorch 2.6's text around a weights_only unpickler error."""
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        text = ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                "\n\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
                "`torch.load` from `False` to `True`. " + _UNSAFE_MESSAGE +
                "\n\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in "
                "the following error message.\n\tWeightsUnpickler error: " + message)
    else:
        text = "Weights only load failed. " + _UNSAFE_MESSAGE + "\n"
        if not re.search(r"whose module (\S+) is blocked", message):
            text += ("Please file an issue with the following so that we can make `weights_only=True` compatible "
                     "with your use case: WeightsUnpickler error: ")
        text += message
    return text + _DOCS_MESSAGE


def _weights_only(weights_only):
    """weights_only=None: True, as in PyTorch >= 2.6, unless the
    environment says otherwise (TORCH_FORCE_[NO_]WEIGHTS_ONLY_LOAD)."""
    true_values = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0") in true_values
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0") in true_values
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force:
        return True
    if weights_only is None:
        if force_no:
            import warnings
            warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
                          "`weights_only` argument was not explicitly passed to `torch.load`, forcing "
                          "weights_only=False.", UserWarning, stacklevel=3)
            return False
        return True
    return weights_only


# Entry ----------------------------------------------------------------------


@contextmanager
def _open_for_read(f):
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "rb") as stream:
            yield stream
        return
    if not hasattr(f, "read"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'read' attribute")
    if hasattr(f, "seekable") and f.seekable():
        yield f
    else:
        yield io.BytesIO(f.read())


class _NoGlobals(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError("global '%s.%s' in a file that is not a PyTorch archive" % (module, name))


def _load_not_zip(stream, weights_only):
    """Not a zip archive: the legacy format (refused) or not a PyTorch file
    (PyTorch's errors: a pickle error, or its check of the magic number)."""
    start = stream.tell()
    head = stream.read(len(_LEGACY_MAGIC))
    if head == _LEGACY_MAGIC:
        raise _unmodeled.unsupported(
            "torch.load of the legacy format (PyTorch < 1.6, or torch.save(..., "
            "_use_new_zipfile_serialization=False))",
            "load it in PyTorch and torch.save it again, which writes the zip format")
    stream.seek(start)
    try:
        _NoGlobals(stream).load()
    except pickle.UnpicklingError as err:
        if weights_only:
            raise pickle.UnpicklingError(_get_wo_message(str(err))) from None
        raise
    raise RuntimeError("Invalid magic number; corrupt file?")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """torch.load: what torch.save wrote at f (a path or a binary file
    object). Storages go back to the device they were saved from unless
    map_location says otherwise (a device, a string, a dict of locations,
    or a callable(storage, location))."""
    weights_only = _weights_only(weights_only)
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    elif pickle_module is None:
        pickle_module = pickle
    pickle_load_args.setdefault("encoding", "utf-8")
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    with _open_for_read(f) as stream:
        start = stream.tell()
        is_zip = stream.read(4) == b"PK\x03\x04"
        stream.seek(start)
        if not is_zip:
            if mmap:
                raise RuntimeError("mmap can only be used with files saved with `torch.save(%s"
                                   "_use_new_zipfile_serialization=True), please torch.save your checkpoint with "
                                   "this option in order to use mmap." % ("%s, " % f if isinstance(f, str) else ""))
            _load_not_zip(stream, weights_only)
        reader = _ZipReader(stream)
        if reader.has_record("constants.pkl"):
            raise _unmodeled.unsupported("torch.load of a TorchScript archive (torch.jit.save)",
                                         "TorchScript is not modeled")
        if not weights_only:
            return _load(reader, map_location, _unpickler_for(pickle_module), **pickle_load_args)
        try:
            return _load(reader, map_location, _WeightsOnlyUnpickler, **pickle_load_args)
        except pickle.UnpicklingError as err:
            raise pickle.UnpicklingError(_get_wo_message(str(err))) from None


def get_unsafe_globals_in_checkpoint(f):
    """The globals f's pickle names that a weights_only load would refuse."""
    import pickletools
    with _open_for_read(f) as stream:
        data = _ZipReader(stream).get_record("data.pkl")
    allowed = set(_allowed_globals()) | set(_user_allowed_globals())
    found = set()
    for op, arg, _ in pickletools.genops(data):
        if op.name == "GLOBAL":
            found.add(arg.replace(" ", "."))
    return sorted(found - allowed)
