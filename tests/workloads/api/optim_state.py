# torch.optim state_dict/load_state_dict, param groups, zero_grad, lr_scheduler
# and nn.utils.clip_grad_*; expectations generated with Debian's python3-torch
# (PyTorch 1.13) on identical inputs and identical under Tensorscope, except
# zero_grad()'s default: set_to_none=True as in PyTorch 2.x (1.13: False), so
# the script names it where the two differ.
import math
import torch


def t(label, f):
    try:
        r = f()
        print(label, "->", r)
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


def fmt(x):
    if isinstance(x, float):
        return "%.6g" % x
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(fmt(v) for v in x) + "]"
    return repr(x)


X = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
Y = torch.tensor([[1.0, -1.0], [0.5, 2.0]])
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
opt = torch.optim.Adam([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.5}], lr=0.1)
t("groups", lambda: [(g["lr"], len(g["params"])) for g in opt.param_groups])
t("defaults", lambda: sorted(k for k in opt.defaults if k in ("lr", "betas", "eps", "weight_decay", "amsgrad")))
for _ in range(2):
    opt.zero_grad(set_to_none=True)
    ((model(X) - Y) ** 2).mean().backward()
    opt.step()
sd = opt.state_dict()
t("sd keys", lambda: sorted(sd))
t("sd state keys", lambda: sorted(sd["state"]))
t("sd state 0", lambda: sorted(sd["state"][0]))
t("sd step", lambda: sd["state"][0]["step"])
t("sd groups params", lambda: [g["params"] for g in sd["param_groups"]])
t("sd group lr", lambda: [g["lr"] for g in sd["param_groups"]])
t("exp_avg", lambda: fmt(sd["state"][1]["exp_avg"].tolist()))

torch.manual_seed(0)
model2 = torch.nn.Linear(3, 2)
opt2 = torch.optim.Adam([{"params": [model2.weight]}, {"params": [model2.bias], "lr": 0.5}], lr=0.1)
opt2.load_state_dict(sd)
t("loaded step", lambda: opt2.state[model2.weight]["step"])
t("loaded lr", lambda: [g["lr"] for g in opt2.param_groups])
t("loaded is copy", lambda: opt2.state[model2.bias]["exp_avg"] is sd["state"][1]["exp_avg"])
bad = torch.optim.Adam(model2.parameters(), lr=0.1)
t("load fewer groups", lambda: bad.load_state_dict(sd))
bad2 = torch.optim.Adam([{"params": [model2.weight, model2.bias]}, {"params": [torch.zeros(2, requires_grad=True)]}])
t("load group size", lambda: bad2.load_state_dict(sd))

t("empty", lambda: torch.optim.SGD([], lr=0.1))
t("no lr", lambda: torch.optim.SGD(model.parameters()))
t("neg lr", lambda: torch.optim.SGD(model.parameters(), lr=-1))
t("nesterov", lambda: torch.optim.SGD(model.parameters(), lr=0.1, nesterov=True))
t("bad beta", lambda: torch.optim.Adam(model.parameters(), betas=(1.0, 0.9)))
t("dup group", lambda: torch.optim.SGD([{"params": [model.weight]}, {"params": [model.weight]}], lr=0.1))
t("non-leaf", lambda: torch.optim.SGD([model.weight * 2], lr=0.1))
sgd = torch.optim.SGD([model.weight], lr=0.1)
sgd.add_param_group({"params": model.bias, "momentum": 0.9})
t("add_param_group", lambda: [(g["lr"], g["momentum"], len(g["params"])) for g in sgd.param_groups])

model.zero_grad()
((model(X) - Y) ** 2).mean().backward()
sgd.zero_grad(set_to_none=False)
t("zero_grad keep", lambda: model.weight.grad.tolist())
sgd.zero_grad(set_to_none=True)
t("zero_grad none", lambda: model.weight.grad)

# clip_grad_norm_ / clip_grad_value_
a = torch.tensor([3.0, 4.0], requires_grad=True)
b = torch.tensor([[12.0]], requires_grad=True)
a.grad = torch.tensor([3.0, 4.0])
b.grad = torch.tensor([[12.0]])
t("clip norm", lambda: torch.nn.utils.clip_grad_norm_([a, b], 6.5))
t("clipped", lambda: (fmt(a.grad.tolist()), fmt(b.grad.tolist())))
t("clip norm big", lambda: torch.nn.utils.clip_grad_norm_([a, b], 100.0))
t("clipped big", lambda: (fmt(a.grad.tolist()), fmt(b.grad.tolist())))
a.grad = torch.tensor([3.0, -4.0])
t("clip inf", lambda: torch.nn.utils.clip_grad_norm_(a, 2.0, norm_type=math.inf))
t("clipped inf", lambda: fmt(a.grad.tolist()))
a.grad = torch.tensor([3.0, -4.0])
t("clip 1", lambda: torch.nn.utils.clip_grad_norm_(a, 3.5, norm_type=1))
t("clipped 1", lambda: fmt(a.grad.tolist()))
a.grad = torch.tensor([0.5, -4.0])
t("clip value", lambda: torch.nn.utils.clip_grad_value_(a, 1.0))
t("clipped value", lambda: a.grad.tolist())

# lr_scheduler: the learning rate after each step
def sched(label, make, steps=8, opt_kind="sgd"):
    w = torch.zeros(2, requires_grad=True)
    o = (torch.optim.SGD([w], lr=0.1, momentum=0.9) if opt_kind == "sgd"
         else torch.optim.Adam([w], lr=0.1))
    s = make(o)
    lrs = [s.get_last_lr()[0]]
    for _ in range(steps):
        w.grad = torch.ones(2)
        o.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    print(label, fmt(lrs))
    return o, s


S = torch.optim.lr_scheduler
sched("StepLR", lambda o: S.StepLR(o, step_size=3, gamma=0.5))
sched("MultiStepLR", lambda o: S.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.1))
sched("ExponentialLR", lambda o: S.ExponentialLR(o, gamma=0.9))
sched("CosineAnnealingLR", lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.01), steps=12)
sched("LambdaLR", lambda o: S.LambdaLR(o, lambda e: 1.0 / (e + 1)))
sched("LinearLR", lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4))
o, s = sched("OneCycleLR", lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=10), steps=9)
t("OneCycle momentum", lambda: fmt(o.param_groups[0]["momentum"]))
o, s = sched("OneCycleLR adam linear", lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=10, anneal_strategy="linear",
                                                               three_phase=True), steps=9, opt_kind="adam")
t("OneCycle betas", lambda: fmt(list(o.param_groups[0]["betas"])))
o, s = sched("StepLR sd", lambda o: S.StepLR(o, step_size=2), steps=3)
t("sched sd", lambda: sorted(s.state_dict()))
t("sched sd vals", lambda: (s.state_dict()["last_epoch"], s.state_dict()["_step_count"], s.state_dict()["base_lrs"]))
s2 = S.StepLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), step_size=2)
s2.load_state_dict(s.state_dict())
t("sched loaded", lambda: (s2.last_epoch, fmt(s2.get_last_lr())))
t("not optimizer", lambda: S.StepLR(object(), 2))


# A script's own Optimizer subclass, as PyTorch's docs write one
class SignSGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01):
        super().__init__(params, dict(lr=lr))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                st["n"] = st.get("n", 0) + 1
                p.add_(p.grad.sign(), alpha=-group["lr"])
        return loss


w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
opt = SignSGD([w], lr=0.25)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
for _ in range(3):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
    sched.step()
print("custom", w.tolist(), opt.state[w], opt.state_dict()["state"], sched.get_last_lr())
print("requires_grad after step", w.requires_grad, w.is_leaf)

# zero_grad()'s default is PyTorch 2.x's set_to_none=True: this line's
# expectation is 2.x's None (1.13 printed zeros)
w.grad = torch.ones(3)
opt.zero_grad()
print("zero_grad default", w.grad)

# clip_grad_norm_ over seeded CPU gradients, each norm type (to 5 digits:
# the reductions' summation order may differ from PyTorch's in the last bit)
torch.manual_seed(0)
ps = [torch.zeros(37, 5, requires_grad=True), torch.zeros(300, requires_grad=True), torch.zeros(1, requires_grad=True)]
for p in ps:
    p.grad = torch.randn(p.shape)
for nt in [2.0, 1.0, 3.0, float("inf")]:
    gs = [p.grad.clone() for p in ps]
    n = torch.nn.utils.clip_grad_norm_(ps, 1.0, norm_type=nt)
    print("clip seeded", nt, "%.5g" % n.item(), ["%.5g" % p.grad.sum().item() for p in ps])
    for p, g in zip(ps, gs):
        p.grad = g
