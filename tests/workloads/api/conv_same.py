# padding="same" with an odd total padding (even kernels): PyTorch pads one more
# zero on the right; values, shapes and gradients, and its warning (once).
import torch, torch.nn.functional as F
torch.manual_seed(0)
for k, d in [((2, 4), 1), ((3, 2), 3), ((4, 3), 1)]:
    x = torch.randn(2, 3, 6, 7, requires_grad=True)
    w = torch.randn(4, 3, *k, requires_grad=True)
    y = F.conv2d(x, w, padding="same", dilation=d)
    y.pow(2).sum().backward()
    print(list(y.shape), [float("%.4g" % v) for v in y.flatten()[:5].tolist()], float("%.4g" % x.grad.sum().item()), float("%.4g" % w.grad.sum().item()))
x = torch.randn(1, 2, 9, requires_grad=True)
m = torch.nn.Conv1d(2, 3, 4, padding="same")
y = m(x); y.sum().backward()
print(list(y.shape), float("%.4g" % x.grad.sum().item()), [float("%.4g" % v) for v in m.weight.grad.flatten()[:4].tolist()])
