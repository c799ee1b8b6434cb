"""torch.cuda.nvtx: ranges and marks that land in the trace."""

from contextlib import contextmanager

from torch import _C, _unmodeled

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def range_push(msg):
    return _C._nvtx_range_push(msg)


def range_pop():
    return _C._nvtx_range_pop()


def range_start(msg):
    return _C._nvtx_range_start(msg)


def range_end(range_id):
    _C._nvtx_range_end(range_id)


def mark(msg):
    _C._nvtx_mark(msg)


@contextmanager
def range(msg, *args, **kwargs):
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()


# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
