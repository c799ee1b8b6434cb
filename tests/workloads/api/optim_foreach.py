# Optimizers' foreach=True/False/None on CPU: the same trajectories and
# state as PyTorch 1.13's single- and multi-tensor paths
import torch

torch.manual_seed(0)
init = [torch.randn(4), torch.randn(2, 3), torch.randn(5)]


def run(cls, steps=3, **kw):
    ps = [p.clone().requires_grad_() for p in init]
    opt = cls(ps, lr=0.01, **kw)
    for i in range(steps):
        for j, p in enumerate(ps):
            p.grad = torch.sin(p.detach() * (i + j + 1))
        opt.step()
    state = opt.state_dict()['state']
    return [p.detach() for p in ps], state


def same(a, b):
    if isinstance(a, torch.Tensor):
        return torch.equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


cases = [
    (torch.optim.SGD, {}), (torch.optim.SGD, dict(momentum=0.9)),
    (torch.optim.SGD, dict(momentum=0.9, nesterov=True, weight_decay=0.1)),
    (torch.optim.SGD, dict(momentum=0.5, dampening=0.1, maximize=True)),
    (torch.optim.Adam, {}), (torch.optim.Adam, dict(amsgrad=True, weight_decay=0.1)),
    (torch.optim.Adam, dict(maximize=True)), (torch.optim.AdamW, {}), (torch.optim.AdamW, dict(amsgrad=True)),
    (torch.optim.RMSprop, {}), (torch.optim.RMSprop, dict(momentum=0.9, centered=True, weight_decay=0.1)),
    (torch.optim.Adagrad, {}), (torch.optim.Adagrad, dict(lr_decay=0.1, weight_decay=0.1)),
]
for cls, kw in cases:
    loop = run(cls, foreach=False, **kw)
    multi = run(cls, foreach=True, **kw)
    default = run(cls, **kw)
    print(cls.__name__, sorted(kw.items()), "foreach==loop", same(loop, multi), "default==loop", same(loop, default))
    print("  ", [round(v, 6) for v in multi[0][0].tolist()],
          {k: (round(v.sum().item(), 5) if isinstance(v, torch.Tensor) else v) for k, v in multi[1][0].items()})
