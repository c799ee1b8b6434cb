# torch.optim NAdam, RAdam, Adamax and Adadelta (#16): weights after a few
# steps (1.13's single-tensor updates), their state and its keys, the
# constructors' errors and repr. The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch
torch.manual_seed(0)
def run(name, make, steps=4):
    w = torch.nn.Parameter(torch.randn(3, 2))
    b = torch.nn.Parameter(torch.randn(2))
    x = torch.randn(5, 3)
    opt = make([w, b])
    for _ in range(steps):
        loss = ((x @ w + b) ** 2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    print(name, [round(v, 6) for v in w.reshape(-1).tolist()], round(loss.item(), 5))
    st = opt.state_dict()["state"][0]
    print("  state", sorted(st.keys()), st["step"])
O = torch.optim
run("nadam", lambda p: O.NAdam(p, lr=0.01))
run("nadam wd", lambda p: O.NAdam(p, lr=0.01, weight_decay=0.1, momentum_decay=0.01))
run("radam", lambda p: O.RAdam(p, lr=0.01), steps=8)
run("radam wd", lambda p: O.RAdam(p, lr=0.05, weight_decay=0.1), steps=8)
run("adamax", lambda p: O.Adamax(p, lr=0.01))
run("adamax max", lambda p: O.Adamax(p, lr=0.01, maximize=True, weight_decay=0.1))
run("adadelta", lambda p: O.Adadelta(p))
run("adadelta rho", lambda p: O.Adadelta(p, lr=0.5, rho=0.5, weight_decay=0.01, maximize=True))
for bad in (lambda: O.NAdam([torch.nn.Parameter(torch.ones(1))], betas=(1.0, 0.9)), lambda: O.Adadelta([torch.nn.Parameter(torch.ones(1))], rho=2),
            lambda: O.RAdam([torch.nn.Parameter(torch.ones(1))], lr=-1), lambda: O.NAdam([torch.nn.Parameter(torch.ones(1))], momentum_decay=-1)):
    try: bad()
    except Exception as e: print(type(e).__name__, e)
print(O.NAdam([torch.nn.Parameter(torch.ones(1))]))
