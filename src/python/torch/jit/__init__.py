"""torch.jit: TorchScript is not modeled. Scripting and tracing compile a
model into TorchScript's own graph, which Tensorscope does not run, so they
fail naming themselves. What TorchScript-ready model code calls while it
runs eagerly keeps its eager meaning: the decorators hand the function
back, is_scripting() and is_tracing() are False."""

import typing

import torch
from torch import _unmodeled

Final = typing.Final


def _refuse(name):
    def refuse(*args, **kwargs):
        raise _unmodeled.NotModeledError(
            "torch.jit.%s is not modeled by Tensorscope yet: TorchScript compiles the model into its own graph, "
            "which Tensorscope does not run; call the model eagerly (torch.compile runs it eagerly too)" % name)
    refuse.__name__ = refuse.__qualname__ = name
    return refuse


for _name in ("script", "trace", "trace_module", "script_if_tracing", "freeze", "optimize_for_inference",
              "save", "load", "fork", "wait"):
    globals()[_name] = _refuse(_name)
del _name


class ScriptModule(torch.nn.Module):
    """No model is ever one here; isinstance checks say False."""

    def __init__(self, *args, **kwargs):
        _refuse("ScriptModule")()


class ScriptFunction:
    def __init__(self, *args, **kwargs):
        _refuse("ScriptFunction")()


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def _decorator(fn=None, **kwargs):
    # @torch.jit.ignore, @torch.jit.ignore(drop=True): eager PyTorch only
    # marks the function for the compiler
    return fn if callable(fn) else (lambda f: f)


ignore = unused = export = _decorator

__getattr__ = _unmodeled.module_getattr(__name__)
