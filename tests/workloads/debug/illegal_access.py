# A tensor that views memory it does not own (__cuda_array_interface__),
# used after that memory was freed and given back to the driver: the
# kernel faults with an illegal memory access, reported later, or at its
# own line with --sync.
import torch


class DeviceBuffer:
    def __init__(self, ptr, n):
        self.__cuda_array_interface__ = {
            "version": 3, "shape": (n,), "typestr": "<f4", "data": (ptr, False),
            "strides": None, "stream": None,
        }


weights = torch.ones(256, device="cuda")
ptr = torch.cuda.caching_allocator_alloc(4 << 20)
view = torch.as_tensor(DeviceBuffer(ptr, 1 << 20))
view.fill_(2.0)
print(view.device, tuple(view.shape), view.data_ptr() == ptr, view.sum().item())
torch.cuda.caching_allocator_delete(ptr)
print("still cached:", view.sum().item())
torch.cuda.empty_cache()
total = view.sum() + weights.sum()
print("queued")
print(total.item())
