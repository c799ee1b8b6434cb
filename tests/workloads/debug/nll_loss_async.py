# A class target out of range on the device: nll_loss's kernel asserts
# (its line on stderr as the kernel runs), and the error surfaces at the
# next call that waits for the device, as on a GPU.
import torch
import torch.nn.functional as F
logp = torch.randn(3, 5, device="cuda").log_softmax(1)
target = torch.tensor([0, 7, 1], device="cuda")
loss = F.nll_loss(logp, target)
print("queued")
print("not reached", loss.item())
