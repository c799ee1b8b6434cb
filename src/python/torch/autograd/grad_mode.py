"""Grad mode and inference mode (torch/autograd/grad_mode.py).

The state is torch._C's, thread-local as in PyTorch (ts-py-grad.c). There
is no autograd yet: these only keep the state that is_grad_enabled(),
is_inference_mode_enabled() and Tensor.is_inference() report.
"""

import functools
import sys

from torch import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]


class _DecoratorContextManager:
    """A context manager that also decorates functions and generator
    functions (each step of a generator runs inside the context)."""

    def __call__(self, func):
        import inspect  # here: importing it costs every workload's start
        if inspect.isclass(func):
            raise RuntimeError("Please use a context manager or a function decorator on classes")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return decorate_context

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator_context(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException:
                        with self.clone():
                            response = gen.throw(*sys.exc_info())
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as e:
                return e.value
        return generator_context

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator: @torch.no_grad as @torch.no_grad()."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class _GradModeBlock(_NoParamDecoratorContextManager):
    """Grad mode is _mode inside, what it was before after."""

    _mode = False

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class no_grad(_GradModeBlock):
    _mode = False


class enable_grad(_GradModeBlock):
    _mode = True


class set_grad_enabled(_DecoratorContextManager):
    """Takes effect when called, as a function; as a context manager or a
    decorator the previous mode comes back at the end."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        self.mode = mode
        _C._set_grad_enabled(mode)

    def __call__(self, orig_func):
        _C._set_grad_enabled(self.prev)
        return super().__call__(orig_func)

    def __enter__(self):
        _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """inference_mode(True) turns grad mode off, inference_mode(False) turns
    both back on, as c10::InferenceMode."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self.prev = (_C.is_grad_enabled(), _C.is_inference_mode_enabled())
        _C._set_inference_mode(self.mode)

    def __exit__(self, *exc):
        _C._set_inference_mode(self.prev[1])
        _C._set_grad_enabled(self.prev[0])

    def clone(self):
        return self.__class__(self.mode)
