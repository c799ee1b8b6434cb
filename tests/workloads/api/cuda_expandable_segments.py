# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (see the .env file): one
# growing segment per stream and pool, mapped in 2 MiB pages (small pool) or
# 20 MiB pages (large pool), pages given back by empty_cache. The numbers
# follow from CUDACachingAllocator.cpp (see tests/test-allocator.c,
# /allocator/expandable-segments).
import torch

C = torch.cuda
C.memory._record_memory_history(context=None)


def stats(label):
    st = C.memory_stats()
    print(label, "reserved", st["reserved_bytes.all.current"], "segment", st["segment.all.current"],
          "inactive_split", st["inactive_split.all.current"],
          "device alloc/free", st["num_device_alloc"], st["num_device_free"])


x = torch.empty(1000, dtype=torch.uint8, device="cuda")
seg = C.memory_snapshot()[0]
print(seg["is_expandable"], seg["segment_type"], seg["total_size"], [b["size"] for b in seg["blocks"]])
stats("1000 B")

# 30 MiB: two 20 MiB pages of a large segment; 10 MiB stay free
big = torch.empty(30 << 20, dtype=torch.uint8, device="cuda")
print([(s["segment_type"], s["total_size"], [b["state"] for b in s["blocks"]]) for s in C.memory_snapshot()])
stats("30 MiB")
del big
C.empty_cache()
stats("after empty_cache")

trace = C.memory._snapshot()["device_traces"][0]
print([(e["action"], e["size"]) for e in trace if e["action"] != "snapshot"])

# Turned off again at run time: new memory comes in fixed segments.
C.memory._set_allocator_settings("expandable_segments:False")
y = torch.empty(1000, dtype=torch.uint8, device="cuda")
print(sorted((s["is_expandable"], s["total_size"]) for s in C.memory_snapshot()))
try:
    C.memory._set_allocator_settings("backend:cudaMallocAsync")
except RuntimeError as err:
    print("RuntimeError:", err)
