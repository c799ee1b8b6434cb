# The warnings of torch.nn.functional that PyTorch 1.13 gives (same text; its
# deprecations name its own functional.py, Tensorscope's the caller's line):
# values are torch 1.13's on identical inputs.
import torch
import torch.nn.functional as F

x = torch.tensor([[-1.0, 0.5], [2.0, 0.0]])
print(F.tanh(x).tolist() == torch.tanh(x).tolist(), F.sigmoid(x).tolist() == torch.sigmoid(x).tolist())
t = torch.tensor([[0.25, 0.75], [0.5, 0.5]])
print(round(F.kl_div(x, t).item(), 4))
print(round(F.mse_loss(x, torch.ones(2)).item(), 4))
print(round(F.l1_loss(x, torch.ones(1, 2)).item(), 4))
