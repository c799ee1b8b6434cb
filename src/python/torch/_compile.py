"""torch.compile, as the "eager" backend runs it: the model or function comes
back unchanged and runs op by op, so the timeline shows the kernels eager
PyTorch launches (Inductor's fused kernels are not modeled). It says so
once on stderr, since the timings differ from a compiled run's."""

import sys

_told = False


def _tell():
    global _told
    if not _told:
        _told = True
        sys.stderr.write("tensorscope: torch.compile runs the model eagerly; kernels are not fused\n")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """torch.compile(model, ...) or @torch.compile / @torch.compile(...)."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")

    def wrap(fn):
        if not callable(fn):
            raise RuntimeError("torch.compile: the model must be callable, got %s" % type(fn).__name__)
        if not disable:
            _tell()
        return fn

    return wrap if model is None else wrap(model)
