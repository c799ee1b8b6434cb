# gather with an index out of range on the device: queued without error,
# reported at the next call that waits for the device (printing), or at
# its own line with --sync.
import torch
scores = torch.arange(6.0, device="cuda").view(2, 3)
picks = torch.tensor([[2, 3], [-1, 1]], device="cuda")
best = torch.gather(scores, 1, picks)
print("queued")
print(best)
print("not reached")
