# Fragmentation, with expandable segments: the same requests fit.
#
# The twin of the fragmentation example: two streams each allocate pairs
# of 8 MiB blocks, one long-lived and one short-lived, under a 256 MiB
# cap, and the short-lived ones are freed. With
# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch 2.1 and
# later) the allocator keeps one segment per stream and maps more 20 MiB
# pages at its end as it grows, instead of a fresh 20 MiB segment for each
# pair: the twelve blocks of a stream pack into five pages (100 MiB), so
# 200 MiB are reserved where fixed segments took 240 MiB. A 32 MiB request,
# which would need a new segment of its own with fixed segments (240 + 32
# is more than the cap), takes the free 12 MiB at the end of stream 0's
# segment plus one more page.
#
# In the memory view the segment map shows each stream's segment growing
# page by page; empty_cache at the end gives back every page no live
# block uses.
import os

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"

import torch  # noqa: E402  (the setting is read when CUDA starts)

MiB = 1024 * 1024
device = torch.device("cuda:0")
total = torch.cuda.get_device_properties(device).total_memory
torch.cuda.set_per_process_memory_fraction(256 * MiB / total, device)

streams = [torch.cuda.current_stream(), torch.cuda.Stream()]
long_lived = []
short_lived = []
for i in range(12):
    with torch.cuda.stream(streams[i % 2]):
        long_lived.append(torch.empty(8 * MiB // 4, device=device).fill_(1.0))
        short_lived.append(torch.empty(8 * MiB // 4, device=device).fill_(2.0))

del short_lived
print("allocated: {} MiB, reserved: {} MiB".format(
    torch.cuda.memory_allocated() // MiB, torch.cuda.memory_reserved() // MiB))

big = torch.empty(32 * MiB // 4, device=device).fill_(3.0)
print("32 MiB fit: allocated: {} MiB, reserved: {} MiB".format(
    torch.cuda.memory_allocated() // MiB, torch.cuda.memory_reserved() // MiB))

segments = torch.cuda.memory_snapshot()
print("segments:", ", ".join("{} MiB{}".format(s["total_size"] // MiB, " (expandable)" if s["is_expandable"] else "")
                             for s in segments))

del big, long_lived
torch.cuda.empty_cache()
print("after empty_cache: reserved: {} MiB".format(torch.cuda.memory_reserved() // MiB))
