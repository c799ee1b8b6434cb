# The losses, LayerNorm and a module's buffers on a CUDA device: values and
# gradients equal the CPU's, which nn_losses checks against PyTorch 1.13 (the
# oracle has no CUDA, so this file prints only comparisons), and .to('cuda')
# moves parameters and buffers alike.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(6, 5)
tgt = torch.tensor([0, 4, 2, -100, 1, 3])
soft = torch.softmax(torch.randn(6, 5), 1)
w = torch.tensor([0.5, 1.0, 2.0, 1.0, 0.3])
y01 = (torch.randn(6, 5) > 0).float()
cases = {
    "cross_entropy": lambda a, dev: F.cross_entropy(a, tgt.to(dev), weight=w.to(dev), label_smoothing=0.1),
    "cross_entropy probs": lambda a, dev: F.cross_entropy(a, soft.to(dev)),
    "nll": lambda a, dev: F.nll_loss(a, tgt.to(dev), reduction="sum"),
    "mse": lambda a, dev: F.mse_loss(a, soft.to(dev)),
    "smooth_l1": lambda a, dev: F.smooth_l1_loss(a, soft.to(dev), beta=0.5),
    "bce_with_logits": lambda a, dev: F.binary_cross_entropy_with_logits(a, y01.to(dev), pos_weight=w.to(dev)),
    "bce": lambda a, dev: F.binary_cross_entropy(a.sigmoid(), y01.to(dev)),
    "kl_div": lambda a, dev: F.kl_div(a, soft.to(dev), reduction="batchmean"),
    "layer_norm": lambda a, dev: F.layer_norm(a, (5,), w.to(dev)).pow(2).sum(),
}
for name, fn in cases.items():
    outs = []
    for dev in ("cpu", "cuda"):
        a = x.detach().to(dev).clone().requires_grad_()
        loss = fn(a, dev)
        loss.backward()
        outs.append((loss, a.grad))
    (lc, gc), (lg, gg) = outs
    print(name, lg.device, torch.allclose(lc, lg.cpu(), atol=1e-6),
          gg is not None and torch.allclose(gc, gg.cpu(), atol=1e-6))

crit = nn.CrossEntropyLoss(weight=w).to("cuda")
net = nn.Sequential(nn.Linear(5, 8), nn.LayerNorm(8), nn.GELU("tanh"), nn.Linear(8, 5)).cuda()
print("moved", crit.weight.device, {p.device.type for p in net.parameters()})
loss = crit(net(x.cuda()), tgt.clamp(min=0).cuda())
loss.backward()
print("grads", all(p.grad is not None and p.grad.device.type == "cuda" for p in net.parameters()))
net.zero_grad()
print("zeroed", sum(p.grad.abs().sum().item() for p in net.parameters()))
