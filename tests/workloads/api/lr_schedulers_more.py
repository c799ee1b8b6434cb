# lr_scheduler's PolynomialLR, ChainedScheduler and CyclicLR (#16): the
# learning rates (and CyclicLR's momentum) over a few steps, per mode, and
# the errors. The expected output is what Debian's python3-torch 1.13
# prints for this script.
import torch
from torch.optim import lr_scheduler as L
def run(name, make, n=8, opt_cls=torch.optim.SGD, **kw):
    p = [torch.nn.Parameter(torch.ones(2))]
    opt = opt_cls(p, lr=0.1, **kw)
    try:
        s = make(opt)
    except Exception as e:
        print(name, "!!", type(e).__name__, e); return
    lrs = []
    for _ in range(n):
        opt.step(); s.step()
        lrs.append(round(s.get_last_lr()[0], 8))
    print(name, lrs, [round(g.get("momentum", 0), 6) for g in opt.param_groups])
run("poly", lambda o: L.PolynomialLR(o, total_iters=4, power=2.0))
run("poly1", lambda o: L.PolynomialLR(o))
run("chained", lambda o: L.ChainedScheduler([L.ConstantLR(o, factor=0.1, total_iters=2), L.ExponentialLR(o, gamma=0.9)]))
run("cyclic", lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2), momentum=0.9)
run("cyclic2", lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2, step_size_down=3, mode="triangular2"), n=12, momentum=0.9)
run("cyclic exp", lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9, cycle_momentum=False))
run("cyclic fn", lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 0.5, scale_mode="iterations", cycle_momentum=False))
run("cyclic adam", lambda o: L.CyclicLR(o, 0.01, 0.1), opt_cls=torch.optim.Adam)
run("cyclic bad", lambda o: L.CyclicLR(o, 0.01, 0.1, mode="sine"), momentum=0.9)
run("cyclic list", lambda o: L.CyclicLR(o, [0.01, 0.02], 0.1), momentum=0.9)
p = [torch.nn.Parameter(torch.ones(2))]
opt = torch.optim.SGD(p, lr=0.1, momentum=0.9)
s = L.CyclicLR(opt, 0.01, 0.1, step_size_up=2)
for _ in range(3):
    opt.step(); s.step()
sd = s.state_dict()
print(sorted(k for k in sd if not k.startswith("_")))
