# nn.utils.weight_norm and spectral_norm (#16): the parameters and buffers
# they make, the weight recomputed by the forward pre-hook (power iteration
# in training mode only), gradients, removal and the errors. The expected
# output is what Debian's python3-torch 1.13 prints for this script.
import torch, torch.nn as nn
torch.manual_seed(0)
lin = nn.utils.spectral_norm(nn.Linear(4, 3))
print(sorted(n for n, _ in lin.named_parameters()), sorted(n for n, _ in lin.named_buffers()))
x = torch.randn(2, 4)
y = lin(x)
print(y, lin.weight_u)
y.sum().backward()
print(lin.weight_orig.grad)
lin.eval(); print(lin(x))
nn.utils.remove_spectral_norm(lin)
print(sorted(n for n, _ in lin.named_parameters()))
conv = nn.utils.weight_norm(nn.Conv2d(2, 3, 3))
print(sorted(n for n, _ in conv.named_parameters()), conv.weight_g.shape, conv.weight_g.flatten())
out = conv(torch.randn(1, 2, 5, 5))
out.mean().backward()
print(out.shape, conv.weight_v.grad.abs().sum(), conv.weight_g.grad.flatten())
wn = nn.utils.weight_norm(nn.Linear(3, 2), dim=None)
print(wn.weight_g, wn(torch.ones(1, 3)))
nn.utils.remove_weight_norm(conv)
print(sorted(n for n, _ in conv.named_parameters()))
for bad in (lambda: nn.utils.spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 2))), lambda: nn.utils.remove_weight_norm(nn.Linear(2, 2)),
            lambda: nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)):
    try: bad()
    except Exception as e: print(type(e).__name__, e)
print(torch.rand(2))
