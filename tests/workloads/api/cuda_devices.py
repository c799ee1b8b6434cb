# torch.cuda device functions: accepted spellings (int, 'cuda:N', torch.device),
# return types, and PyTorch 2.5's exact errors for bad arguments.
import torch

C = torch.cuda


def show(label, f):
    try:
        print(label, "->", repr(f()))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", str(e).splitlines()[0] if str(e) else "")


show("is_initialized before", C.is_initialized)
show("memory_stats before init", C.memory_stats)
show("empty_cache before init", C.empty_cache)
show("is_available", C.is_available)
show("device_count", C.device_count)
show("init", C.init)
show("is_initialized after", C.is_initialized)
show("current_device", C.current_device)
for spelling in (None, 1, "cuda:2", torch.device("cuda", 3), "cuda"):
    show("get_device_properties(%r)" % (spelling,), lambda: C.get_device_properties(spelling))
p = C.get_device_properties(0)
print(p.name, p.major, p.minor, p.total_memory, p.multi_processor_count, p.is_integrated,
      p.is_multi_gpu_board, p.L2_cache_size, str(p.uuid))
show("get_device_properties(9)", lambda: C.get_device_properties(9))
show("get_device_properties(-1)", lambda: C.get_device_properties(-1))
show("get_device_properties('cpu')", lambda: C.get_device_properties("cpu"))
show("get_device_name()", C.get_device_name)
show("get_device_name('cuda:1')", lambda: C.get_device_name("cuda:1"))
show("get_device_capability()", C.get_device_capability)
show("get_device_capability(torch.device('cuda:3'))", lambda: C.get_device_capability(torch.device("cuda:3")))
show("current_blas_handle type", lambda: type(C.current_blas_handle()).__name__)
show("set_device(9)", lambda: C.set_device(9))
show("set_device(-1)", lambda: C.set_device(-1))
show("set_device('cpu')", lambda: C.set_device("cpu"))
show("set_device('cuda')", lambda: C.set_device("cuda"))
show("set_device(None)", lambda: C.set_device(None))
show("set_device(1.5)", lambda: C.set_device(1.5))
show("set_device('cuda:2')", lambda: (C.set_device("cuda:2"), C.current_device()))
show("set_device(torch.device('cuda', 1))", lambda: (C.set_device(torch.device("cuda", 1)), C.current_device()))
C.set_device(0)
with C.device(1) as d:
    print("with device(1) as d:", d, C.current_device())
print("after:", C.current_device())
with C.device("cuda:3"):
    print("with device('cuda:3'):", C.current_device())
with C.device(None):
    print("with device(None):", C.current_device())
with C.device(-1):
    print("with device(-1):", C.current_device())
show("device('cpu')", lambda: C.device("cpu"))
x = torch.ones(2, device="cuda:2")
with C.device_of(x):
    print("device_of(cuda:2 tensor):", C.current_device())
with C.device_of(torch.ones(2)):
    print("device_of(cpu tensor):", C.current_device())
show("synchronize()", C.synchronize)
show("synchronize('cuda:1')", lambda: C.synchronize("cuda:1"))
show("synchronize('cpu')", lambda: C.synchronize("cpu"))
show("ipc_collect", C.ipc_collect)
show("mem_get_info(1)", lambda: C.mem_get_info(1))
show("OutOfMemoryError", lambda: (C.OutOfMemoryError.__mro__[1].__name__, torch.OutOfMemoryError is C.OutOfMemoryError))
show("os.cpu_count", lambda: C.os.cpu_count() > 0)
show("stream()", lambda: C.stream())
try:
    C.set_device(4)
except RuntimeError as e:
    print(repr(str(e)))
# free = total minus what the caching allocator has reserved on that device
print(C.mem_get_info(2), C.mem_get_info(2)[1] - C.mem_get_info(2)[0] == C.memory_reserved(2))
