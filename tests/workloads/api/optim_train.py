# torch.optim SGD/Adam/AdamW/RMSprop/Adagrad training a tiny nn.Linear for a few steps;
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
train("rmsprop", lambda p: torch.optim.RMSprop(p, lr=0.01))
train("rmsprop centered momentum wd", lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5, centered=True,
                                                                     weight_decay=0.1))
train("rmsprop maximize", lambda p: torch.optim.RMSprop(p, lr=0.005, eps=1e-4, maximize=True))
train("adagrad", lambda p: torch.optim.Adagrad(p, lr=0.1))
train("adagrad decay wd init", lambda p: torch.optim.Adagrad(p, lr=0.2, lr_decay=0.1, weight_decay=0.05,
                                                               initial_accumulator_value=0.5))
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


# on the GPU when there is one (Tensorscope's simulated one; the oracle ran on
# the CPU): the same numbers, one kernel sequence per parameter
def on_device(label, make_opt, steps=4):
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2).to(dev)
    x, y = X.to(dev), Y.to(dev)
    opt = make_opt(model.parameters())
    for _ in range(steps):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
    show(label, model)
    print(label, "state on the parameter's device", sorted(
        (k, v.device == model.weight.device) for k, v in opt.state[model.weight].items() if k != "step"))


on_device("device sgd", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9))
on_device("device adamw", lambda p: torch.optim.AdamW(p, lr=0.05, amsgrad=True))
on_device("device rmsprop", lambda p: torch.optim.RMSprop(p, lr=0.01, centered=True))
