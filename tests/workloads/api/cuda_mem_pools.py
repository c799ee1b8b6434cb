# Private memory pools (the allocator side of CUDA graphs): graph_pool_handle,
# torch.cuda.MemPool and use_mem_pool (PyTorch >= 2.5), segment_pool_id in
# memory_snapshot(), use counts, and the pool's memory given back when the
# pool goes. Every number follows from CUDACachingAllocator.cpp (see
# tests/test-allocator.c, /allocator/private-pools).
import torch

C = torch.cuda
C.init()

# MemPool::graph_pool_handle: (0, uid_++), uid_ counting from 1
print("handles", C.graph_pool_handle(), C.graph_pool_handle())
pool = C.MemPool()
print("pool", pool.id, pool.allocator, pool.use_count())

x = torch.empty(1000, dtype=torch.uint8, device="cuda")
with C.use_mem_pool(pool):
    # beginAllocateToPool adds a use
    print("inside", pool.use_count())
    y = torch.empty(1000, dtype=torch.uint8, device="cuda")
print("after", pool.use_count())

# y has a 2 MiB small segment of the pool's own, though x's segment has
# 2096128 free bytes
print(sorted((s["segment_pool_id"], s["segment_type"], s["total_size"], s["allocated_size"])
             for s in C.memory_snapshot()))
print("pool snapshot", [(s["segment_pool_id"], s["allocated_size"]) for s in pool.snapshot()])
print("y in the pool's segment", pool.snapshot()[0]["address"] == y.data_ptr())
z = torch.empty(1000, dtype=torch.uint8, device="cuda")
print("z - x", z.data_ptr() - x.data_ptr())
st = C.memory_stats()
print("segments", st["segment.all.current"], st["segment.small_pool.current"],
      "reserved", st["reserved_bytes.all.current"])

# Freed into the pool: reused by the next allocation into it only.
del y
with C.use_mem_pool(pool):
    y2 = torch.empty(1000, dtype=torch.uint8, device="cuda")
print("y2 in the pool's segment", [s["allocated_size"] for s in pool.snapshot()])
del y2
# The pool lives: empty_cache keeps its segment.
C.empty_cache()
print("reserved with the pool", C.memory_reserved())
# ~MemPool: releasePool, then the pool's unused segment goes.
del pool
st = C.memory_stats()
print("reserved without", st["reserved_bytes.all.current"], "num_device_free", st["num_device_free"])

try:
    torch._C._cuda_endAllocateToPool(0, (0, 99))
except RuntimeError as err:
    print("RuntimeError:", err)
