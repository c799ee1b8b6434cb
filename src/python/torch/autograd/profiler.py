"""torch.autograd.profiler: the legacy profiler's names over torch.profiler.

profile(use_cuda=...) is torch.profiler.profile with the CPU activity and,
with use_cuda, the CUDA one. emit_nvtx needs no switch here: every operator
already is a named range on the timeline, as nsys shows emit_nvtx's."""

import contextlib

from torch.profiler import ProfilerActivity
from torch.profiler import profile as _profile
from torch.profiler import record_function  # noqa: F401
from torch.profiler._events import EventList, FunctionEvent, FunctionEventAvg  # noqa: F401


class profile(_profile):
    def __init__(self, enabled=True, *, use_cuda=False, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False,
                 use_cpu=True, experimental_config=None):
        acts = ([ProfilerActivity.CPU] if use_cpu else []) + ([ProfilerActivity.CUDA] if use_cuda else [])
        super().__init__(activities=acts, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules)
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.stop()
        return False

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, header=None,
              top_level_events_only=False):
        return self.events().table(sort_by=sort_by, row_limit=row_limit, header=header,
                                   top_level_events_only=top_level_events_only)

    @property
    def function_events(self):
        return self.events()


@contextlib.contextmanager
def emit_nvtx(enabled=True, record_shapes=False):
    yield
