# nn.Module.register_full_backward_hook (#15): the hook sees the gradients
# of the module's inputs and outputs and may replace grad_input; outputs
# pass through BackwardHookFunctionBackward; a module whose inputs need no
# gradient gets None for them. The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch
import torch.nn as nn

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t):
    return None if t is None else [round(v, 4) + 0.0 for v in t.reshape(-1).cpu().tolist()]


for dev in ("cpu", DEV):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(dev)
    seen = []

    def hook(name):
        def fn(module, grad_input, grad_output):
            seen.append((name, type(module).__name__, [r(g) for g in grad_input], [r(g) for g in grad_output]))
        return fn

    handles = [net[0].register_full_backward_hook(hook("fc1")),
               net[1].register_full_backward_hook(hook("relu")),
               net[2].register_full_backward_hook(hook("fc2"))]
    x = torch.randn(2, 3).to(dev)
    y = net(x)
    print(y.grad_fn.name())
    y.sum().backward()
    for s in seen:
        print(s)

    # a hook that scales grad_input
    seen.clear()
    for h in handles:
        h.remove()
    net.zero_grad()
    net[1].register_full_backward_hook(lambda m, gi, go: tuple(g * 10 for g in gi))
    xx = x.clone().requires_grad_()
    net(xx).sum().backward()
    print(r(net[0].bias.grad), r(xx.grad))

    # several inputs, one not a tensor
    class Mix(nn.Module):
        def forward(self, a, k, b):
            return a * k + b * b

    m = Mix()
    m.register_full_backward_hook(lambda mod, gi, go: print("mix", [r(g) for g in gi], [r(g) for g in go]))
    a = torch.tensor([1.0, 2.0], device=dev, requires_grad=True)
    b = torch.tensor([3.0, 4.0], device=dev)
    m(a, 2.0, b).sum().backward()
    try:
        bad = nn.Linear(2, 2).to(dev)
        bad.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        bad(a).sum().backward()
    except RuntimeError as e:
        print(e)
