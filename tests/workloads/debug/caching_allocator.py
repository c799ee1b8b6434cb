# Raw blocks of the caching allocator: counted like tensors, given back
# with caching_allocator_delete.
import torch
torch.cuda.init()
before = torch.cuda.memory_allocated()
ptr = torch.cuda.caching_allocator_alloc(1)
print("alloc(1):", torch.cuda.memory_allocated() - before)
print("on device 0:", ptr == torch.cuda.memory_snapshot()[0]["address"])
torch.cuda.caching_allocator_delete(ptr)
print("after delete:", torch.cuda.memory_allocated() - before)
side = torch.cuda.Stream()
ptr = torch.cuda.caching_allocator_alloc(3000, device=0, stream=side)
print("on a stream:", torch.cuda.memory_allocated() - before)
torch.cuda.caching_allocator_delete(ptr)
try:
    torch.cuda.caching_allocator_alloc(16, stream="default")
except TypeError as err:
    print("TypeError:", err)
try:
    torch.cuda.caching_allocator_delete(ptr + 8)
except RuntimeError as err:
    print("RuntimeError:", str(err).replace(hex(ptr + 8), "PTR"))
torch.cuda.empty_cache()
try:
    torch.as_tensor(type("Gone", (), {"__cuda_array_interface__": {
        "shape": (4,), "typestr": "<f4", "data": (ptr, False), "version": 2}})())
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    torch.as_tensor(type("Bad", (), {"__cuda_array_interface__": {
        "shape": (4,), "typestr": "<f4", "data": (ptr, False), "strides": (6,)}})())
except ValueError as err:
    print("ValueError:", err)
