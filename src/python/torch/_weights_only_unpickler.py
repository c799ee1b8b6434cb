"""The unpickler of torch.load(weights_only=True), as PyTorch >= 2.6 has it
(torch/_weights_only_unpickler.py upstream): a checkpoint may name only the
globals a state dict needs (tensors' rebuild functions, OrderedDict,
torch.Size, dtypes, devices, storage classes) and those add_safe_globals
allows; REDUCE calls and NEWOBJ builds only those, BUILD sets the state of
tensors, parameters, OrderedDicts and allowed classes, APPEND goes to lists.
It is Python's pure-Python unpickler with those handlers replaced."""

import _compat_pickle
import functools
import pickle
import struct
from _codecs import encode as _codecs_encode
from collections import Counter, OrderedDict

import torch
from torch import _utils
from torch.storage import TypedStorage, UntypedStorage, _DTYPE_TO_STORAGE

_blocklisted_modules = ("sys", "os", "posix", "nt")
_safe_globals = set()


def add_safe_globals(safe_globals):
    """Let weights_only loads build these classes and call these functions
    (each a class or function, or a (global, "module.name") pair)."""
    _safe_globals.update(safe_globals)


def get_safe_globals():
    return list(_safe_globals)


def clear_safe_globals():
    _safe_globals.clear()


class safe_globals:
    """with torch.serialization.safe_globals([Foo]): add_safe_globals for
    the block only."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._added = [g for g in self.safe_globals if g not in _safe_globals]
        add_safe_globals(self._added)

    def __exit__(self, *exc):
        _safe_globals.difference_update(self._added)


def _user_allowed_globals():
    allowed = {}
    for g in _safe_globals:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full path), but got tuple "
                                 "of length: %d" % len(g))
            if type(g[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full path, but got: %s"
                                % type(g[1]))
            allowed[g[1]] = g[0]
        else:
            allowed[g.__module__ + "." + g.__qualname__] = g
    return allowed


@functools.lru_cache(maxsize=1)
def _allowed_globals():
    """The globals a weights_only load may name without add_safe_globals."""
    allowed = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": torch.nn.Parameter,
        "torch.Size": torch.Size,
        "torch.Tensor": torch.Tensor,
        "torch.device": torch.device,
        "_codecs.encode": _codecs_encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch.storage.TypedStorage": TypedStorage,
        "torch.storage.UntypedStorage": UntypedStorage,
        "torch._tensor._rebuild_from_type_v2": torch._tensor._rebuild_from_type_v2,
    }
    for dtype in torch._dtypes:
        allowed[str(dtype)] = dtype
    for dtype, name in torch._LEGACY_NAMES.items():
        allowed["torch." + name] = getattr(torch, name)
        allowed["torch.cuda." + name] = getattr(torch.cuda, name)
    for name in _DTYPE_TO_STORAGE.values():
        allowed["torch." + name] = allowed["torch.cuda." + name] = torch.serialization.StorageType(name)
    for name in ("_rebuild_parameter", "_rebuild_parameter_with_state", "_rebuild_qtensor", "_rebuild_tensor",
                 "_rebuild_tensor_v2", "_rebuild_tensor_v3", "_rebuild_sparse_tensor",
                 "_rebuild_meta_tensor_no_storage", "_rebuild_nested_tensor", "_rebuild_wrapper_subclass",
                 "_rebuild_device_tensor_from_numpy", "_rebuild_device_tensor_from_cpu_tensor"):
        allowed["torch._utils." + name] = getattr(_utils, name)
    return allowed


def _is_allowed(obj):
    return any(obj is v for table in (_allowed_globals(), _user_allowed_globals()) for v in table.values())


class Unpickler(pickle._Unpickler):
    """Python's unpickler, restricted as PyTorch's weights_only one is: a
    global must be allowed (the only way a pickle reaches code), REDUCE
    calls and NEWOBJ builds only allowed globals, BUILD sets the state of
    tensors, parameters, OrderedDicts and allowed classes only, APPEND
    goes to lists only. Opcodes that build objects otherwise (INST, OBJ,
    NEWOBJ_EX, the extension registry) are refused."""

    dispatch = dict(pickle._Unpickler.dispatch)
    for _op in (pickle.INST, pickle.OBJ, pickle.NEWOBJ_EX, pickle.EXT1, pickle.EXT2, pickle.EXT4):
        del dispatch[_op[0]]
    del _op

    def load(self):
        try:
            return super().load()
        except KeyError as err:
            if err.args and isinstance(err.args[0], int):  # no handler for this opcode
                raise pickle.UnpicklingError("Unsupported operand %d" % err.args[0]) from None
            raise self._corrupt(err) from err
        except (IndexError, struct.error, UnicodeDecodeError) as err:
            raise self._corrupt(err) from err

    @staticmethod
    def _corrupt(err):
        # what Python's C unpickler would say in one line, and PyTorch's says
        return pickle.UnpicklingError(
            "Failed to load pickle data (%s: %s); this usually means the input is corrupted or truncated, but it "
            "can also be a genuine error raised while reconstructing an object. See the exception's __cause__ "
            "for the original traceback." % (type(err).__name__, err))

    def find_class(self, module, name):
        # protocol 2 names Python 2's modules (__builtin__.set)
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full_path = module + "." + name
        if module in _blocklisted_modules:
            raise pickle.UnpicklingError("Trying to load unsupported GLOBAL %s whose module %s is blocked."
                                         % (full_path, module))
        for allowed in (_allowed_globals(), _user_allowed_globals()):
            if full_path in allowed:
                return allowed[full_path]
        raise pickle.UnpicklingError(
            "Unsupported global: GLOBAL %s was not an allowed global by default. Please use "
            "`torch.serialization.add_safe_globals([%s])` or the `torch.serialization.safe_globals([%s])` "
            "context manager to allowlist this global if you trust this class/function." % (full_path, name, name))

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not _is_allowed(func):
            raise pickle.UnpicklingError("Trying to call reduce for unrecognized function %s" % (func,))
        self.stack[-1] = func(*args)
    dispatch[pickle.REDUCE[0]] = load_reduce

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        if cls is torch.nn.Parameter:
            self.append(torch.nn.Parameter(*args))
        elif _is_allowed(cls):
            self.append(cls.__new__(cls, *args))
        else:
            raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted via "
                                         "`add_safe_globals` but got %s" % (cls,))
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        cls = type(inst)
        if cls is OrderedDict:
            inst.__dict__.update(state)
        elif cls in (torch.Tensor, torch.nn.Parameter) or _is_allowed(cls):
            if getattr(inst, "__setstate__", None) is not None:
                inst.__setstate__(state)
            else:
                _utils._set_obj_state(inst, state)
        else:
            raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                                         "`add_safe_globals`, but got %s" % (cls,))
    dispatch[pickle.BUILD[0]] = load_build

    def load_append(self):
        item = self.stack.pop()
        target = self.stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError("Can only append to lists, but got %s" % (type(target),))
        target.append(item)
    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self):
        items = self.pop_mark()
        target = self.stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError("Can only extend lists, but got %s" % (type(target),))
        target.extend(items)
    dispatch[pickle.APPENDS[0]] = load_appends
