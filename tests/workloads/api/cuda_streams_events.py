# torch.cuda.Stream / Event / stream(): constructors, attributes, reprs,
# equality, context managers across devices, and the exact errors.
import torch

C = torch.cuda


def show(label, f):
    try:
        print(label, "->", repr(f()))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


d0 = C.default_stream()
print(d0, d0.cuda_stream, d0.stream_id, d0.device_index, d0.device_type, d0.priority)
print(C.default_stream(1), C.current_stream("cuda:2"), C.default_stream(torch.device("cuda", 3)))
show("current_stream('cpu')", lambda: C.current_stream("cpu"))
show("default_stream(torch.device('cpu'))", lambda: C.default_stream(torch.device("cpu")))
s = C.Stream()
print(s, s.device, s.priority, s.cuda_stream != 0, s.stream_id != 0, s.query())
for spelling in (1, "cuda:2", torch.device("cuda:3"), -1, None):
    show("Stream(%r).device" % (spelling,), lambda: C.Stream(spelling).device)
show("Stream('cpu')", lambda: C.Stream("cpu"))
show("Stream(priority=1)", lambda: C.Stream(priority=1))
show("Stream(priority=-1).priority", lambda: C.Stream(priority=-1).priority)
show("Stream(priority=-9).priority", lambda: C.Stream(priority=-9).priority)
show("priority_range", C.Stream.priority_range)
print("eq:", s == s, s == d0, C.current_stream() == C.current_stream(), C.current_stream(0) == C.current_stream(1),
      s == 1, s != d0, hash(s) == hash((s.cuda_stream, s.device)))
print("_as_parameter_:", type(s._as_parameter_).__name__, s._as_parameter_.value == s.cuda_stream)

e = C.Event()
print(e, e.device, e.cuda_event, e.event_id, e.query())
e.synchronize()
e.wait()
e.record()
print(repr(e) == "<torch.cuda.Event %#x>" % e.cuda_event, e.device, e.cuda_event == e.event_id != 0, e.query())
show("record on another device's stream", lambda: e.record(C.Stream(1)))
with C.device(1):
    e1 = C.Event()
    e1.record()
print("recorded under device(1):", e1.device)
print("Stream(2).record_event():", C.Stream(2).record_event().device)
a = C.Event(enable_timing=True)
b = C.Event(enable_timing=True)
show("elapsed_time, not recorded", lambda: a.elapsed_time(b))
show("elapsed_time, no timing", lambda: C.Event().elapsed_time(b))
a.record()
x = torch.ones(1 << 20, device="cuda") * 2
b.record()
b.synchronize()
print("elapsed_time:", type(a.elapsed_time(b)).__name__, a.elapsed_time(b) > 0)
s.wait_event(b)
s.wait_stream(C.current_stream())
b.wait(s)
s.synchronize()
print("query after synchronize:", s.query(), b.query())
print("interprocess handle:", len(C.Event(interprocess=True).ipc_handle()))
print("from_ipc_handle:", type(C.Event.from_ipc_handle(0, bytes(64))).__name__)

s1 = C.Stream(1)
with C.stream(s1):
    print("in stream(s1):", C.current_device(), C.current_stream() == s1)
    s0 = C.Stream(0)
    with C.stream(s0):
        print("  in stream(s0):", C.current_device(), C.current_stream() == s0, C.current_stream(1) == s1)
    print("back in s1:", C.current_device(), C.current_stream() == s1)
print("after:", C.current_device(), C.current_stream(0) == C.default_stream(0), C.current_stream(1) == C.default_stream(1))
with C.Stream() as s2:
    print("with Stream() as s2:", C.current_stream() == s2)
print("after:", C.current_stream() == C.default_stream())
with C.stream(None) as nothing:
    print("stream(None):", nothing, C.current_stream() == C.default_stream())
C.set_stream(s)
print("set_stream:", C.current_stream() == s)
C.set_stream(C.default_stream())
show("stream()", lambda: C.stream())
