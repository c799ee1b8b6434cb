# The optimizers' param_groups keys, state entries, state_dict and repr, as
# PyTorch 1.13 lays them out; expectations generated with Debian's python3-torch
# (PyTorch 1.13) and identical under Tensorscope.
import torch
w = torch.zeros(2, requires_grad=True)
for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]:
    o = getattr(torch.optim, name)([w], lr=0.1)
    print(name, list(o.param_groups[0].keys()), list(o.state_dict()["state"].get(0, {}).keys()))
    w.grad = torch.ones(2); o.step()
    print(name, list(o.state[w].keys()), {k: v for k, v in o.state_dict()["state"][0].items() if not isinstance(v, torch.Tensor) or v.dim() == 0})
    print(repr(o))
o = torch.optim.SGD([w], lr=0.1); w.grad = torch.ones(2); o.step(); print(o.state_dict())


# constructor errors
for f in [lambda: torch.optim.SGD(torch.zeros(2, requires_grad=True), lr=0.1),
          lambda: torch.optim.SGD([1.0], lr=0.1),
          lambda: torch.optim.SGD({torch.zeros(2, requires_grad=True)}, lr=0.1),
          lambda: torch.optim.SGD([{"params": []}, 3], lr=0.1),
          lambda: torch.optim.lr_scheduler.StepLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), 2, last_epoch=3)]:
    try:
        f(); print("no error")
    except Exception as e:
        print(type(e).__name__, e)
