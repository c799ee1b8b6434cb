"""torch.profiler on Tensorscope's own trace.

A profile window reads back what the run records anyway (operators, CUDA
runtime calls, kernels, copies, allocator actions; see _events.py), so
profiling costs the workload nothing and the numbers are the simulator's,
the same ones the timeline shows. record_function ranges are also NVTX
ranges, so they appear on the timeline's host row.
"""

import enum
import functools
import os
import socket
import time

import torch
from torch._unmodeled import unsupported

from ._events import EventList, Window


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1

    def __repr__(self):
        return "<ProfilerActivity.%s: %d>" % (self.name, self.value)


def supported_activities():
    acts = {ProfilerActivity.CPU}
    if torch.cuda.is_available():
        acts.add(ProfilerActivity.CUDA)
    return acts


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """PyTorch's step schedule: skip_first steps, then cycles of wait,
    warmup and active steps (repeat of them, 0 for no end)."""
    def schedule_fn(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    assert wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0, \
        "Invalid profiler schedule arguments"
    if warmup == 0:
        import warnings
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """on_trace_ready that writes each window as DIR/WORKER.TIME.pt.trace.json
    (gzipped with use_gzip), the names TensorBoard's plugin looks for."""
    def handler_fn(prof):
        nonlocal worker_name
        os.makedirs(dir_name, exist_ok=True)
        if not worker_name:
            worker_name = "{}_{}".format(socket.gethostname(), os.getpid())
        file_name = "{}.{}.pt.trace.json".format(worker_name, int(time.time() * 1000))
        path = os.path.join(dir_name, file_name)
        if use_gzip:
            import gzip
            import shutil
            prof.export_chrome_trace(path)
            with open(path, "rb") as fin, gzip.open(path + ".gz", "wb") as fout:
                shutil.copyfileobj(fin, fout)
            os.remove(path)
        else:
            prof.export_chrome_trace(path)
    return handler_fn


_active_windows = []


class record_function:
    """A named range: an NVTX range on the timeline, and an event of every
    profiler window open around it."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._start = None
        self._pushed = False

    def __enter__(self):
        self._start = torch._C._trace_host_time()
        self._pushed = torch.cuda.is_initialized()
        if self._pushed:
            torch.cuda.nvtx.range_push(self.name)
        return self

    def __exit__(self, *exc):
        if self._pushed:
            torch.cuda.nvtx.range_pop()
        end = torch._C._trace_host_time()
        n_records = torch._C._trace_count("api-call")
        for w in _active_windows:
            w.annotations.append((self.name, 0, self._start, end, n_records))
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper


class profile:
    """torch.profiler.profile. The window's events come from the run's
    trace; stop() synchronizes the devices first so that every kernel the
    window launched has its times, as PyTorch's CUDA profiling does."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, use_cuda=None):
        self.activities = set(activities) if activities else supported_activities()
        if use_cuda is not None and use_cuda:
            self.activities.add(ProfilerActivity.CUDA)
        self.schedule = schedule or _default_schedule_fn
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._window = None
        self._events = None
        self.profiler = self

    # -- the window
    def _open(self):
        if self._window is None:
            self._window = Window()
            _active_windows.append(self._window)

    def _close(self):
        if self._window is None:
            return
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
        _active_windows.remove(self._window)
        try:
            self._events = self._filter(self._window.events(self.profile_memory))
        finally:
            self._window.release()
        self._window = None

    def _filter(self, events):
        keep = []
        for e in events:
            if e.device_type == "CUDA" and ProfilerActivity.CUDA not in self.activities:
                continue
            if e.device_type == "CPU" and ProfilerActivity.CPU not in self.activities:
                e.cpu_children = []
                continue
            keep.append(e)
        return EventList(keep, profile_memory=self.profile_memory)

    def _transition(self, prev, cur):
        # warmup steps run with the profiler armed but keep nothing, as Kineto's prepared trace
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev == ProfilerAction.RECORD_AND_SAVE or (prev in recording and cur not in recording):
            self._close()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if cur in recording and (self._window is None or prev == ProfilerAction.RECORD_AND_SAVE):
            self._open()

    def start(self):
        self._transition(ProfilerAction.NONE, self.current_action)

    def stop(self):
        self._transition(self.current_action, ProfilerAction.NONE)

    def step(self):
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transition(prev, self.current_action)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False

    # -- results
    def _results(self):
        if self._events is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace" if
                                 self._window is None else "the profiler window is still open")
        return self._events

    def events(self):
        return self._results()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self._results().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        self._results().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        raise unsupported("torch.profiler.profile.export_stacks", "the trace records no Python stacks per operator")

    def export_memory_timeline(self, path, device=None):
        raise unsupported("torch.profiler.profile.export_memory_timeline",
                          "open the run's trace in Tensorscope's Memory page instead")

    def add_metadata(self, key, value):
        pass

    def add_metadata_json(self, key, value):
        pass
