# F.rrelu / nn.RReLU (#16): training-mode slopes drawn for the non-positive
# elements only (a seed gives PyTorch's values), gradients, eval mode's mean
# slope, torch.rrelu and the in-place form. The expected output is what
# Debian's python3-torch 1.13 prints for this script.
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.tensor([[-1.0, 2.0, -3.0], [0.0, -0.5, 4.0]], requires_grad=True)
y = F.rrelu(x, training=True)
print(y.detach())
y.sum().backward(); print(x.grad)
print(F.rrelu(x.detach()), torch.rrelu(x.detach(), 0.1, 0.3, True))
m = nn.RReLU(0.1, 0.3)
print(m, m(x.detach()), m.eval()(x.detach()))
z = torch.tensor([-2.0, 1.0]); F.rrelu_(z, training=True); print(z)
print(torch.rand(2))
