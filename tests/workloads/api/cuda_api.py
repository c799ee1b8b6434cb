# The torch.cuda namespace, call by call.
import torch

print(torch.cuda.is_initialized())
print(torch.cuda.device_count(), torch.cuda.is_available())
torch.cuda.init()
print(torch.cuda.is_initialized(), torch.cuda.current_device())
torch.cuda.set_device(2)
print(torch.cuda.current_device(), torch.ones(1, device='cuda').device)
torch.cuda.set_device('cuda:0')
x = torch.ones(2, device='cuda:3')
with torch.cuda.device_of(x):
    print("device_of:", torch.cuda.current_device())
print(torch.cuda.get_device_name(), torch.cuda.get_device_capability(1))
print(torch.cuda.get_device_properties(0))
print(torch.cuda.current_blas_handle() != 0)
s = torch.cuda.Stream(device=1, priority=-1)
print(s.device, s.priority, s.cuda_stream != 0, s.query())
print(torch.cuda.default_stream(1), torch.cuda.current_stream(1) == torch.cuda.default_stream(1))
print(torch.cuda.Stream.priority_range())
with torch.cuda.stream(s):
    print(torch.cuda.current_device(), torch.cuda.current_stream(1) == s)
    y = torch.ones(1000, device='cuda:1') * 2
print(torch.cuda.current_device(), torch.cuda.current_stream(1) == s)
e = s.record_event()
print(type(e).__name__, e.query() in (True, False))
torch.cuda.default_stream(1).wait_event(e)
e.synchronize()
print(e.query(), s.query())
a = torch.cuda.Event(enable_timing=True)
b = torch.cuda.Event(enable_timing=True)
a.record()
z = torch.randn(512, 512, device='cuda') @ torch.randn(512, 512, device='cuda')
b.record()
torch.cuda.synchronize()
print(a.elapsed_time(b) > 0)
try:
    torch.cuda.Event(enable_timing=True).elapsed_time(b)
except ValueError as err:
    print("ValueError:", err)
torch.cuda.ipc_collect()
y.record_stream(torch.cuda.current_stream(1))
print(torch.cuda.memory_allocated(1) > 0, torch.cuda.memory_reserved(1) >= torch.cuda.memory_allocated(1))
free, total = torch.cuda.mem_get_info(0)
print(total, free <= total)
print(torch.cuda.nvtx.range_push("a"), torch.cuda.nvtx.range_push("b"), torch.cuda.nvtx.range_pop(),
      torch.cuda.nvtx.range_pop(), torch.cuda.nvtx.range_pop())
with torch.cuda.nvtx.range("ctx {}", 1):
    pass
torch.cuda.manual_seed(7)
print(torch.cuda.initial_seed())
states = torch.cuda.get_rng_state_all()
print(len(states), states[0].dtype, states[0].shape)
r1 = torch.rand(5, device='cuda')
torch.cuda.set_rng_state_all(states)
r2 = torch.rand(5, device='cuda')
print(torch.equal(r1, r2))
try:
    torch.empty(1 << 40, device='cuda')
except torch.cuda.OutOfMemoryError as err:
    print("OutOfMemoryError:", str(err).split(".")[0])
print(isinstance(torch.cuda.OutOfMemoryError("x"), RuntimeError))
print(torch.cuda.os.cpu_count() > 0)
print(torch.cuda.FloatTensor(2).device, torch.cuda.LongTensor([1, 2]).dtype)
