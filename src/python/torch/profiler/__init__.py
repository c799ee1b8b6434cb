"""torch.profiler, answered from the run's own trace (see profiler.py)."""

from torch import _unmodeled

from ._events import EventList, FunctionEvent, FunctionEventAvg  # noqa: F401
from .profiler import (ProfilerAction, ProfilerActivity, profile, record_function, schedule,  # noqa: F401
                       supported_activities, tensorboard_trace_handler)

__getattr__ = _unmodeled.module_getattr(__name__)
