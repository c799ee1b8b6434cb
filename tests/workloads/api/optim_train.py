# torch.optim SGD/Adam/AdamW training a tiny nn.Linear for a few steps;
# expectations generated with Debian's python3-torch (PyTorch 1.13) on identical
# inputs (the seed-matched CPU init) and identical under Tensorscope.
import torch

X = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75], [0.1, 0.2, 0.3]])
Y = torch.tensor([[1.0, -1.0], [0.5, 2.0], [-1.5, 0.25], [0.0, 1.0]])


def show(label, model):
    vals = [v for p in model.parameters() for v in p.detach().reshape(-1).tolist()]
    print(label, " ".join("%.5f" % v for v in vals))


def train(label, make_opt, steps=5):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = make_opt(model.parameters())
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        opt.step()
    show(label, model)
    return model, opt


train("sgd", lambda p: torch.optim.SGD(p, lr=0.1))
train("sgd momentum", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9))
train("sgd nesterov wd", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01))
train("sgd dampening maximize", lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.5, dampening=0.3, maximize=True))
train("adam", lambda p: torch.optim.Adam(p, lr=0.05))
train("adam wd amsgrad", lambda p: torch.optim.Adam(p, lr=0.02, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True))
train("adam maximize eps", lambda p: torch.optim.Adam(p, lr=0.01, eps=1e-3, maximize=True))
train("adamw", lambda p: torch.optim.AdamW(p, lr=0.05))
train("adamw amsgrad", lambda p: torch.optim.AdamW(p, lr=0.03, weight_decay=0.5, amsgrad=True))


def closure_run():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def closure():
        opt.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        return loss
    losses = [opt.step(closure) for _ in range(3)]
    print("closure losses", ["%.5f" % float(l) for l in losses])
    show("closure", model)


closure_run()
