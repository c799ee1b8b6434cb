# An illegal memory access: using memory after it was given back.
#
# The tensor `view` is built over a raw block of the caching allocator
# through __cuda_array_interface__, as libraries that share GPU buffers
# do. It does not own that memory: freeing the block does not stop the
# tensor from pointing at it.
#
# While the block is only cached, its bytes are still mapped and reading
# them "works" (this is what makes such bugs hard to find). After
# empty_cache() the driver takes the memory back, and the next kernel that
# reads it faults. Here that kernel waits behind long work on the stream
# (torch.cuda._sleep stands in for it), so the error is raised at the next
# call that waits for the device (.item()), not at the line that launched
# the faulting kernel. (The first sum runs the very kernels of the faulting
# line once: on a real GPU a kernel's first launch loads its code and waits
# for the device, which would report the error at that line.)
#
# Turn on "Synchronous" (CUDA_LAUNCH_BLOCKING=1, --sync) and run again:
# the traceback now points at the line with view.sum().
import torch


class DeviceBuffer:
    """The minimal producer of a CUDA array: a pointer and a shape."""

    def __init__(self, ptr, n):
        self.__cuda_array_interface__ = {
            "version": 3, "shape": (n,), "typestr": "<f4",
            "data": (ptr, False), "strides": None, "stream": None,
        }


weights = torch.ones(1024, device="cuda")
ptr = torch.cuda.caching_allocator_alloc(8 << 20)   # 8 MiB, a segment of its own
view = torch.as_tensor(DeviceBuffer(ptr, 2 << 20))  # shares the block, does not own it
view.fill_(1.0)
print("sum while allocated:", (view.sum() + weights.sum()).item())

torch.cuda.caching_allocator_delete(ptr)
print("sum after delete (still cached):", view.sum().item())

torch.cuda.empty_cache()                            # the segment goes back to the driver
torch.cuda._sleep(100_000_000)                      # about 50 ms of GPU time at 2 GHz
total = view.sum() + weights.sum()                  # this kernel reads unmapped memory
print("queued, no error yet")
print("never reached:", total.item())
