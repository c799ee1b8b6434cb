"""torch.compiler: what model code asks of the compiler, with the answers
of an eager run (torch.compile runs eagerly here, torch/_compile.py):
nothing is being compiled, and the decorators hand the function back."""

from torch import _unmodeled


def is_compiling():
    return False


def is_dynamo_compiling():
    return False


def reset():
    pass


def _returns_fn(fn=None, *args, **kwargs):
    # @disable and @disable(recursive=False) alike
    return fn if callable(fn) else (lambda f: f)


disable = allow_in_graph = assume_constant_result = _returns_fn

__getattr__ = _unmodeled.module_getattr(__name__)
