# lr_scheduler's MultiplicativeLR, ConstantLR, CosineAnnealingWarmRestarts, SequentialLR
# (its switch steps with an epoch: PyTorch's deprecation warning, in .stderr)
# and ReduceLROnPlateau; expectations generated with Debian's python3-torch
# (PyTorch 1.13) and identical under Tensorscope.
import torch


def fmt(x):
    return "[" + ", ".join("%.6g" % v for v in x) + "]"


def sched(label, make, steps=10, metrics=None):
    w = torch.zeros(2, requires_grad=True)
    o = torch.optim.SGD([w], lr=0.1)
    s = make(o)
    lrs = [o.param_groups[0]["lr"]]
    for i in range(steps):
        w.grad = torch.ones(2)
        o.step()
        if metrics is None:
            s.step()
        else:
            s.step(metrics[i])
        lrs.append(o.param_groups[0]["lr"])
    print(label, fmt(lrs), fmt(s.get_last_lr()) if hasattr(s, "get_last_lr") else "")
    return s


S = torch.optim.lr_scheduler
sched("MultiplicativeLR", lambda o: S.MultiplicativeLR(o, lambda e: 0.9))
sched("ConstantLR", lambda o: S.ConstantLR(o, factor=0.5, total_iters=3))
sched("CosineAnnealingWarmRestarts", lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001))
s = sched("SequentialLR", lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=3),
                                                        S.ExponentialLR(o, gamma=0.8)], milestones=[4]))
print("SequentialLR sd", sorted(s.state_dict()), len(s.state_dict()["_schedulers"]))
s = sched("ReduceLROnPlateau", lambda o: S.ReduceLROnPlateau(o, factor=0.5, patience=1, cooldown=1),
          metrics=[1.0, 0.9, 0.95, 0.91, 0.92, 0.5, 0.6, 0.6, 0.6, 0.6])
print("ReduceLROnPlateau", s.best, s.num_bad_epochs, s.last_epoch, sorted(s.state_dict()))
s = sched("ReduceLROnPlateau max abs", lambda o: S.ReduceLROnPlateau(o, mode="max", threshold_mode="abs", threshold=0.1,
                                                                    patience=0, min_lr=0.03),
          metrics=[1.0, 1.05, 1.2, 1.2, 1.25, 2, 2, 2, 2, 2])
try:
    S.ReduceLROnPlateau(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), mode="mid")
except ValueError as e:
    print("ValueError:", e)
