# nn.Conv1d/2d/3d, nn.ConvTranspose1d/2d, nn.Unfold/nn.Fold: PyTorch's
# default init (same seed, same weights), reprs, and a small training
# step of a conv net, on the CPU and on DEV.
import torch
import torch.nn as nn
import torch.nn.functional as F

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def g4(v):
    return float("%.4g" % v)


def r(t):
    return [g4(v) for v in t.detach().cpu().flatten().tolist()]


torch.manual_seed(0)
mods = [
    nn.Conv1d(4, 6, 3),
    nn.Conv2d(3, 16, 3, padding=1),
    nn.Conv2d(4, 6, (3, 2), stride=2, padding=1, groups=2, bias=False),
    nn.Conv2d(4, 6, 3, padding="same", dilation=2),
    nn.Conv1d(4, 6, 3, padding="valid"),
    nn.Conv3d(2, 4, 3, stride=(1, 2, 2)),
    nn.ConvTranspose1d(4, 6, 3),
    nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1, dilation=(1, 2)),
    nn.ConvTranspose2d(4, 6, 3, groups=2, bias=False),
    nn.Unfold(2, padding=1),
    nn.Fold((4, 5), 2, stride=2),
]
for m in mods:
    print(m)
    for name, p in m.named_parameters():
        print("  ", name, list(p.shape), r(p)[:4])

for i, dev in enumerate(["cpu", DEV]):
    print("== pass", i)
    torch.manual_seed(1)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3, stride=2, padding=1),
                        nn.ReLU(), nn.ConvTranspose2d(4, 2, 2, stride=2), nn.Flatten(), nn.Linear(2 * 8 * 8, 3))
    net.to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    x = torch.randn(4, 3, 8, 8).to(dev)
    target = torch.tensor([0, 2, 1, 2]).to(dev)
    for step in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(net(x), target)
        loss.backward()
        opt.step()
        print("step", step, g4(loss.item()), r(net[0].weight.grad)[:3], r(net[4].bias.grad))
    ct = nn.ConvTranspose2d(2, 3, 3, stride=2).to(dev)
    print("output_size", list(ct(torch.ones(1, 2, 4, 4).to(dev), output_size=(10, 10)).shape))
    u = F.unfold(torch.arange(40.).reshape(1, 2, 4, 5).to(dev), 2, padding=1, stride=(1, 2))
    print("unfold", list(u.shape), u[0, :, 1].tolist())
    a = torch.arange(32.).reshape(2, 4, 4).to(dev).requires_grad_()
    f = F.fold(a, (3, 3), 2)
    print("fold", list(f.shape), f.flatten().tolist())
    (f * f).sum().backward()
    print("fold grad", a.grad.flatten().tolist()[:8])
    x = torch.arange(12.).reshape(1, 3, 4).to(dev).requires_grad_()
    c = F.unfold(x, (2, 3))
    print("unfold unbatched", list(c.shape), c.flatten().tolist())
    (c * torch.arange(24.).reshape(6, 4).to(dev)).sum().backward()
    print("unfold grad", x.grad.flatten().tolist())
