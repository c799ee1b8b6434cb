"""torch.cuda.Stream and torch.cuda.Event over the session's streams/events."""

import ctypes

import torch
from torch import _C, _unmodeled


class Stream:
    def __new__(cls, device=None, priority=0, **kwargs):
        from . import _get_device_index
        _C._cuda_init()
        idx = _get_device_index(device, optional=True)
        if priority > 0:
            # getStreamFromPool's TORCH_CHECK: a RuntimeError.
            raise RuntimeError("Expected cuda stream priority to be less than or equal to 0, got %d" % priority)
        self = object.__new__(cls)
        self._id = _C._stream_new(idx, priority)
        self._load()
        return self

    def __init__(self, device=None, priority=0, **kwargs):
        pass

    @classmethod
    def _from_id(cls, sid):
        self = object.__new__(cls)
        self._id = sid
        self._load()
        return self

    def _load(self):
        dev, prio, handle = _C._stream_info(self._id)
        self.device_index = dev
        self.priority = prio
        self.cuda_stream = handle
        self.device_type = 1
        # PyTorch packs kind, priority and pool index into stream_id; the
        # default stream's is 0 there as here.
        self.stream_id = 0 if handle == 0 else self._id

    @property
    def device(self):
        return torch.device("cuda", self.device_index)

    @staticmethod
    def priority_range():
        return _C._stream_priority_range()

    def query(self):
        return _C._stream_query(self._id)

    def synchronize(self):
        _C._stream_synchronize(self._id)

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        _C._stream_wait_stream(self._id, stream._id)

    def record_event(self, event=None):
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self._id == other._id

    def __hash__(self):
        return hash((self.cuda_stream, self.device))

    def __enter__(self):
        from . import StreamContext
        self._ctx = StreamContext(self)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)

    def __repr__(self):
        return "<torch.cuda.Stream device=%s cuda_stream=%#x>" % (self.device, self.cuda_stream)

    @property
    def _as_parameter_(self):
        return ctypes.c_void_p(self.cuda_stream)


class ExternalStream(Stream):
    pass


class Event:
    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self.blocking = blocking
        self.interprocess = interprocess
        self._id = _C._event_new(enable_timing, blocking, interprocess)

    def __del__(self):
        try:
            _C._event_free(self._id)
        except Exception:
            pass

    @property
    def cuda_event(self):
        return _C._event_handle(self._id)

    @property
    def event_id(self):
        return self.cuda_event

    @property
    def device(self):
        idx = _C._event_device(self._id)
        return None if idx < 0 else torch.device("cuda", idx)

    @property
    def _as_parameter_(self):
        return ctypes.c_void_p(self.cuda_event)

    @classmethod
    def from_ipc_handle(cls, device, handle):
        """Another process's event: here every process is this one, so the
        result is a fresh interprocess event on that device."""
        from . import _get_device_index
        idx = _get_device_index(device, optional=True)
        event = cls(interprocess=True)
        event.record(torch.cuda.default_stream(idx))
        return event

    def record(self, stream=None):
        from . import current_stream
        if stream is None:
            stream = current_stream()
        _C._event_record(self._id, stream._id)

    def wait(self, stream=None):
        from . import current_stream
        if stream is None:
            stream = current_stream()
        _C._event_wait(self._id, stream._id)

    def query(self):
        return _C._event_query(self._id)

    def elapsed_time(self, end_event):
        return _C._event_elapsed_time(self._id, end_event._id)

    def synchronize(self):
        _C._event_synchronize(self._id)

    def ipc_handle(self):
        if not self.interprocess:
            raise RuntimeError("CUDA error: invalid resource handle")
        return bytes(64)

    def __repr__(self):
        if self.cuda_event:
            return "<torch.cuda.Event %#x>" % self.cuda_event
        return "<torch.cuda.Event uninitialized>"


# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
