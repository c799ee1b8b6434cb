# An out-of-range index on the device: the kernel faults within
# microseconds, so the next launch (the multiplication) reports it, as on a
# real GPU; with --sync its own line does.
import torch
table = torch.arange(0, 8, 1, device="cuda").view(4, 2)
ids = torch.tensor([1, 4], device="cuda")
rows = table.index_select(0, ids)
doubled = rows * 2
print("queued")
total = doubled.sum().item()
print("not reached", total)
