# How the caching allocator counts memory.
#
# A 1000x1000 float32 tensor needs 4,000,000 bytes; the allocator rounds
# that up to a multiple of 512 (4,000,256). Requests between 1 MiB and
# 10 MiB are carved out of a 20 MiB segment (20,971,520 bytes), so far more
# is reserved than allocated. Deleting the tensor keeps the segment cached;
# only empty_cache() hands it back. The printed pairs should be:
#   4000256 20971520
#   4000256 20971520
#   0 20971520
#   0 0
#   4000256 20971520
# followed by the memory_summary table.
import torch
x = torch.empty((1000, 1000), device='cuda')
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
print(torch.cuda.max_memory_allocated(), torch.cuda.memory_cached())
del x
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
torch.cuda.empty_cache()
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
print(torch.cuda.max_memory_allocated(), torch.cuda.max_memory_cached())
stats = torch.cuda.memory_stats()
assert stats["allocation.all.allocated"] == 1
assert stats["segment.large_pool.freed"] == 1
print(torch.cuda.memory_summary(abbreviated=True))
