# Seed example 06 (adapted from PyTorch's CUDA semantics notes).
# Caching-allocator arithmetic: 1000x1000 float32 asks for 4,000,000 bytes,
# rounded to 4,000,256 (a multiple of 512), carved from a fresh 20 MiB
# segment (requests between 1 and 10 MiB get one). Deleting the tensor
# keeps the segment cached until empty_cache().
# What it must print is in 06_memory_management.expected.
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
