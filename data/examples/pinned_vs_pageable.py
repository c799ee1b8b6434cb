# Pinned versus pageable copies.
#
# The same 16 MiB are copied to the GPU three times. From pageable memory
# the driver first stages the data through a pinned bounce buffer, so the
# copy is slower and the host is blocked until it ends, even when
# non_blocking=True is asked for. From pinned memory the copy engine reads
# the host buffer directly at full PCIe speed and, being non_blocking, the
# call returns at once. Compare the lengths of the three copies and the
# host row: it waits inside the first two NVTX ranges, not in the third.
import torch

device = torch.device("cuda:0")
count = 4 * 1024 * 1024            # 16 MiB of float32
pageable = torch.randn(count)
pinned = torch.randn(count).pin_memory()

def timed_copy(name, source, non_blocking):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    torch.cuda.nvtx.range_push(name)
    start.record()
    copy = source.to(device, non_blocking=non_blocking)
    end.record()
    torch.cuda.nvtx.range_pop()
    end.synchronize()
    return start.elapsed_time(end)

slow = timed_copy("pageable", pageable, False)
still_slow = timed_copy("pageable, non_blocking", pageable, True)
fast = timed_copy("pinned, non_blocking", pinned, True)
print("pageable:               {:.3f} ms".format(slow))
print("pageable, non_blocking: {:.3f} ms".format(still_slow))
print("pinned, non_blocking:   {:.3f} ms".format(fast))
print("pinned is {:.1f}x faster".format(slow / fast))
