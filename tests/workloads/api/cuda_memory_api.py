# The torch.cuda memory API after known allocations: memory_stats keys and
# values (the caching allocator's rounding, pools and splits), memory_summary
# text, memory_snapshot layout, resets, empty_cache, deprecated aliases and
# the exact errors.
import warnings

import torch

C = torch.cuda


def show(label, f):
    try:
        print(label, "->", repr(f()))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


def nonzero(dev=0):
    st = C.memory_stats(dev)
    return " ".join("%s=%d" % (k, v) for k, v in st.items()
                    if v and (".all." in k or "." not in k))


C.init()
st = C.memory_stats()
print(type(st).__name__, len(st), list(st)[:3], list(st)[-3:], st["max_split_size"])
print(sorted({k.split(".")[0] for k in st}))
x = torch.empty(1000, dtype=torch.uint8, device="cuda")
print("1000 B:", nonzero())
print(C.memory_allocated(), C.max_memory_allocated(), C.memory_reserved(), C.max_memory_reserved())
print(C.memory_summary(), end="")
print(C.memory_summary(abbreviated=True), end="")
segs = C.memory_snapshot()
print(len(segs), sorted(segs[0]))
seg = segs[0]
print(seg["device"], seg["total_size"], seg["allocated_size"], seg["active_size"], seg["requested_size"],
      seg["stream"], seg["segment_type"], seg["segment_pool_id"], seg["is_expandable"],
      seg["address"] == x.untyped_storage().data_ptr())
for blk in seg["blocks"]:
    print(" ", sorted(blk), blk["size"], blk["requested_size"], blk["state"], blk["address"] - seg["address"])
del x
print("after del:", nonzero())
C.empty_cache()
print("after empty_cache:", nonzero())
C.reset_accumulated_memory_stats()
C.reset_peak_memory_stats()
print("after resets:", nonzero() or "(all zero)")

for label, n in (("1 MiB", 1 << 20), ("1 MiB + 1", (1 << 20) + 1), ("5 MiB", 5 << 20),
                 ("12 MiB", 12 << 20), ("11 MiB + 1", (11 << 20) + 1)):
    t = torch.empty(n, dtype=torch.uint8, device="cuda:1")
    st = C.memory_stats(1)
    print(label, st["allocated_bytes.all.current"], st["requested_bytes.all.current"],
          st["reserved_bytes.all.current"], st["inactive_split_bytes.all.current"],
          st["segment.large_pool.current"], st["segment.small_pool.current"])
    del t
    C.empty_cache()
print("device 1 totals:", C.memory_stats("cuda:1")["num_device_alloc"], C.memory_stats(torch.device("cuda:1"))["num_device_free"],
      C.memory_stats(1)["num_sync_all_streams"])

nested = C.memory_stats_as_nested_dict()
print(sorted(nested)[:4], nested["allocated_bytes"]["all"]["peak"])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    C.memory_cached()
    C.max_memory_cached()
    C.reset_max_memory_allocated()
    C.reset_max_memory_cached()
for w in caught:
    print(w.category.__name__ + ":", w.message)
show("set_per_process_memory_fraction(1)", lambda: C.set_per_process_memory_fraction(1))
show("set_per_process_memory_fraction(-0.1)", lambda: C.set_per_process_memory_fraction(-0.1))
show("set_per_process_memory_fraction(2.0)", lambda: C.set_per_process_memory_fraction(2.0))
show("set_per_process_memory_fraction(0.5, 'cuda:3')", lambda: C.set_per_process_memory_fraction(0.5, "cuda:3"))
show("memory_stats('cpu')", lambda: C.memory_stats("cpu"))
try:
    torch.empty(1 << 45, dtype=torch.uint8, device="cuda:2")
except C.OutOfMemoryError as err:
    print("OutOfMemoryError:", err)
print("num_ooms:", C.memory_stats(2)["num_ooms"])
C.memory._record_memory_history()
y = torch.empty(311 * 411, device="cuda")
snap = C.memory._snapshot()
print(sorted(snap))
last = snap["device_traces"][0][-1]
print(last["action"], last["size"], last["addr"] == y.untyped_storage().data_ptr(), last["frames"][0]["line"])
show("_record_memory_history('foo')", lambda: C.memory._record_memory_history("foo"))
show("_record_memory_history(context='x')", lambda: C.memory._record_memory_history(context="x"))
show("_record_memory_history(stacks='x')", lambda: C.memory._record_memory_history(stacks="x"))
show("_record_memory_history(None)", lambda: C.memory._record_memory_history(None))
