# Fragmentation: enough memory is free, yet the allocation fails.
#
# The caching allocator serves 8 MiB requests from 20 MiB segments and
# never moves a live block. Here two streams each allocate pairs of
# blocks, one long-lived and one short-lived, that share a segment; then
# the short-lived ones are freed. Every segment is left with a 12 MiB hole
# next to a live block. With the process capped at 256 MiB, a 64 MiB
# request then needs a new segment that does not fit, even though the
# holes add up to far more than 64 MiB. Blocks are also tied to the stream
# that allocated them, so one stream cannot use the other's holes.
#
# In the memory view, scrub to the end: reserved stays flat while
# allocated drops, and the segment map shows the holes. The error message
# reports how much is "reserved by PyTorch but unallocated".
import torch

MiB = 1024 * 1024
device = torch.device("cuda:0")
total = torch.cuda.get_device_properties(device).total_memory
torch.cuda.set_per_process_memory_fraction(256 * MiB / total, device)

streams = [torch.cuda.current_stream(), torch.cuda.Stream()]
long_lived = []
short_lived = []
for i in range(12):
    with torch.cuda.stream(streams[i % 2]):
        # Writing each tensor (a fill kernel on its stream) also spaces
        # the allocations out on the time axis.
        long_lived.append(torch.empty(8 * MiB // 4, device=device).fill_(1.0))
        short_lived.append(torch.empty(8 * MiB // 4, device=device).fill_(2.0))

del short_lived
print("allocated: {} MiB, reserved: {} MiB".format(
    torch.cuda.memory_allocated() // MiB, torch.cuda.memory_reserved() // MiB))

try:
    big = torch.empty(64 * MiB // 4, device=device)
except torch.cuda.OutOfMemoryError as err:
    print("OutOfMemoryError:", err)

free_in_cache = torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
print("free inside the cache: {} MiB".format(free_in_cache // MiB))
