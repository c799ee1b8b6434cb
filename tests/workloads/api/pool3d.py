# 3-d pooling (#16): max_pool3d with indices (padding, dilation, ceil_mode,
# unbatched input), avg_pool3d (count_include_pad, ceil_mode,
# divisor_override), adaptive avg/max pooling in 3-d, their gradients and
# modules. The expected output is what Debian's python3-torch 1.13 prints
# for this script.
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(2, 3, 5, 6, 7, requires_grad=True)
def show(name, t):
    if isinstance(t, tuple):
        print(name, tuple(t[0].shape), [round(v, 4) for v in t[0].reshape(-1)[:6].tolist()], t[1].reshape(-1)[:8].tolist())
    else:
        print(name, tuple(t.shape), [round(v, 4) for v in t.reshape(-1)[:6].tolist()], round(t.sum().item(), 3))
show("max", F.max_pool3d(x, 2, return_indices=True))
show("max s1 p1", F.max_pool3d(x, 3, 1, 1, return_indices=True))
show("max dil ceil", F.max_pool3d(x, (2, 3, 2), (2, 2, 1), (1, 1, 0), (1, 1, 2), ceil_mode=True, return_indices=True))
show("max 4d", F.max_pool3d(x[0], 2, return_indices=True))
show("avg", F.avg_pool3d(x, 2))
show("avg pad excl", F.avg_pool3d(x, 3, 2, 1, count_include_pad=False))
show("avg pad incl ceil", F.avg_pool3d(x, 3, 2, 1, ceil_mode=True))
show("avg override", F.avg_pool3d(x, 2, divisor_override=3))
show("aavg", F.adaptive_avg_pool3d(x, (2, 3, 4)))
show("aavg none", F.adaptive_avg_pool3d(x, (None, 2, 2)))
show("amax", F.adaptive_max_pool3d(x, (2, 3, 4), return_indices=True))
y = F.max_pool3d(x, 2) .sum() + F.avg_pool3d(x, 3, 2, 1).sum() + F.adaptive_avg_pool3d(x, 2).sum() + F.adaptive_max_pool3d(x, 3).sum()
y.backward()
print("grad", round(x.grad.abs().sum().item(), 3), round(x.grad[0, 0, 0, 0, :4].sum().item(), 4))
print(nn.MaxPool3d(2), nn.AvgPool3d(3, stride=2), nn.AdaptiveAvgPool3d((1, 2, 3)), nn.AdaptiveMaxPool3d(2))
print(nn.MaxPool3d(2, return_indices=True)(x)[1].shape, nn.AvgPool3d(2)(x).shape, nn.AdaptiveAvgPool3d(1)(x).shape)
