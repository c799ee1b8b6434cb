# torch.utils.checkpoint (#15): the forward runs without a graph and the
# backward recomputes it (with the forward's RNG state: dropout draws the
# same mask), giving the gradients of the plain run; use_reentrant=True
# and False. The expected output is what Debian's python3-torch 1.13
# prints for this script.
import warnings

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t):
    return [round(v, 4) + 0.0 for v in t.reshape(-1).cpu().tolist()]


for dev in ("cpu", DEV):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.5), nn.Linear(8, 2)).to(dev)
    x0 = torch.randn(3, 4).to(dev)

    def run(mode):
        net.zero_grad()
        x = x0.clone().requires_grad_()
        torch.manual_seed(1)
        if dev != "cpu":
            torch.cuda.manual_seed(1)
        if mode == "plain":
            y = net(x)
        elif mode == "sequential":
            y = checkpoint_sequential(net, 2, x)
        else:
            y = checkpoint(net, x, use_reentrant=mode == "reentrant")
        if mode == "reentrant":
            print(y.grad_fn.name())
        y.pow(2).sum().backward()
        return r(x.grad) + r(net[0].weight.grad) + r(net[3].bias.grad)

    plain = run("plain")
    for mode in ("reentrant", "non-reentrant", "sequential"):
        got = run(mode)
        print(mode, max(abs(a - b) for a, b in zip(plain, got)) < 1e-4)

    # inputs that do not require grad: reentrant warns and gives no
    # parameter gradients; non-reentrant still reaches the parameters
    lin = nn.Linear(4, 2).to(dev)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = checkpoint(lin, x0)
        print([str(m.message) for m in w], y.requires_grad)
    y = checkpoint(lin, x0, use_reentrant=False)
    y.sum().backward()
    print(r(lin.bias.grad))

    # a non-tensor argument and several outputs
    a = x0.clone().requires_grad_()
    p, q = checkpoint(lambda t, k: (t * k, t.sin()), a, 3.0)
    (p.sum() + q.sum()).backward()
    print(r(a.grad)[:4])

    # the recomputation runs under the forward's autocast state, so it
    # makes the activations the forward made (bfloat16 here)
    for reentrant in (True, False):
        seen = []

        def f(t):
            y = lin(t)
            seen.append(y.dtype)
            return y

        with torch.autocast(dev, dtype=torch.bfloat16):
            y = checkpoint(f, x0.clone().requires_grad_(), use_reentrant=reentrant)
        y.float().sum().backward()
        print(seen)

    # errors
    a = x0.clone().requires_grad_()
    y = checkpoint(lambda t: t * 2, a)
    try:
        torch.autograd.grad(y.sum(), a)
    except RuntimeError as e:
        print(e)
    try:
        checkpoint(lambda t: t, a, extra=1)
    except ValueError as e:
        print(e)
