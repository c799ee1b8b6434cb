# Advanced indexing with an index out of range on the device: queued
# without error, reported at the next call that waits for the device
# (printing), as for gather.
import torch
table = torch.arange(12.0, device="cuda").view(3, 4)
rows = torch.tensor([0, 5], device="cuda")
picked = table[rows, 1]
print("queued")
print(picked)
print("not reached")
