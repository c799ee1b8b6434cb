"""What Tensorscope's torch answers for the parts of PyTorch it does not model.

An attribute or submodule that PyTorch has and Tensorscope does not raises
NotModeledError naming it ("torch.compile is not modeled by Tensorscope
yet"), never a bare AttributeError and never a silent no-op. The error is an
AttributeError, so hasattr() is False as scripts expect, and a
NotImplementedError, so `except NotImplementedError` catches it too.
"""

import sys as _sys
import types as _types


class NotModeledError(AttributeError, NotImplementedError):
    pass


NotModeledError.__module__ = "tensorscope"


def not_modeled(qualname):
    return NotModeledError(qualname + " is not modeled by Tensorscope yet")


def unsupported(call, why=""):
    """For a call Tensorscope has but not with these arguments: a plain
    NotImplementedError ("torch.zeros(..., out=...) is not modeled by
    Tensorscope yet")."""
    return NotImplementedError(call + " is not modeled by Tensorscope yet" + (": " + why if why else ""))


def stub(qualname, error=not_modeled):
    """A function PyTorch has that Tensorscope does not model: calling it
    raises error(qualname) (not_modeled, or unsupported for a call that is
    modeled but not for what it was given)."""
    def call(*args, **kwargs):
        raise error(qualname)
    call.__name__ = call.__qualname__ = qualname.rpartition(".")[2]
    return call


def missing(qualname, name, owner):
    """The error for a missing attribute name of owner ("module 'torch'",
    "'Tensor' object", "type object 'Tensor'"): qualname.name is not
    modeled; dunders (probed by import machinery, pickle, copy, NumPy) stay
    plain AttributeErrors."""
    if name.startswith("__") and name.endswith("__"):
        return AttributeError("%s has no attribute '%s'" % (owner, name))
    return not_modeled(qualname + "." + name)


def module_getattr(modname):
    """A module-level __getattr__ for modname."""
    def __getattr__(name):
        raise missing(modname, name, "module '%s'" % modname)
    return __getattr__


def skeleton(qualname):
    """An empty package for a PyTorch module Tensorscope does not model yet:
    `import qualname` works, every attribute of it raises NotModeledError.
    Bound as an attribute of its parent, as the real submodule would be."""
    mod = _types.ModuleType(qualname, qualname + ": not modeled by Tensorscope yet")
    mod.__path__ = []
    mod.__getattr__ = module_getattr(qualname)
    _sys.modules[qualname] = mod
    parent, _, child = qualname.rpartition(".")
    setattr(_sys.modules[parent], child, mod)
    return mod


class _Finder:
    """Last on sys.meta_path: an import of torch.X that no file provides
    fails naming it, as a ModuleNotFoundError (an ImportError). Its .name is
    left unset: `from torch.optim import AdamW` tries torch.optim.AdamW as a
    module first and would swallow an error that names it, then say only
    "cannot import name"."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.startswith("torch."):
            raise ModuleNotFoundError(name + " is not modeled by Tensorscope yet")
        return None


def install_finder():
    if not any(isinstance(f, _Finder) for f in _sys.meta_path):
        _sys.meta_path.append(_Finder())
