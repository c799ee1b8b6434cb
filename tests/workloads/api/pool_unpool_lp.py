# max_unpool1d/2d and lp_pool1d/2d with their modules (#16): values,
# output_size, gradients and errors. The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(1, 2, 4, 6, requires_grad=True)
out, idx = F.max_pool2d(x, 2, return_indices=True)
u = F.max_unpool2d(out, idx, 2)
print(u.shape, [round(v, 4) for v in u.reshape(-1)[:10].tolist()])
print(F.max_unpool2d(out, idx, 2, output_size=(5, 7)).shape)
u.sum().backward(); print(x.grad.sum().item())
o1, i1 = F.max_pool1d(torch.arange(8.).reshape(1, 1, 8), 2, return_indices=True)
print(F.max_unpool1d(o1, i1, 2))
print(nn.MaxUnpool2d(2), nn.MaxUnpool2d(2)(out, idx).shape, nn.MaxUnpool1d(2)(o1, i1).shape)
try: F.max_unpool2d(out, idx, 2, output_size=(9, 9))
except Exception as e: print(type(e).__name__, e)
y = torch.rand(1, 2, 4, 4) + 0.1
print([round(v, 4) for v in F.lp_pool2d(y, 2, 2).reshape(-1).tolist()], [round(v, 4) for v in F.lp_pool1d(y[0], 3, 2).reshape(-1)[:4].tolist()])
print(nn.LPPool2d(2, 3, stride=2), nn.LPPool2d(2, 2)(y).shape, nn.LPPool1d(1, 2)(y[0]).shape)
