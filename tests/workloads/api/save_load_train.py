# A checkpoint mid-training: a model trains 2 steps with Adam on the GPU,
# saves its and the optimizer's state dicts to a file, a fresh model and
# optimizer load them (onto the CPU, then back to the GPU), and both pairs
# go on training step for step.
import os
import tempfile

import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def make():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).to(DEV)
    return m, torch.optim.Adam(m.parameters(), lr=0.05)


def step(m, opt, x, y):
    opt.zero_grad()
    loss = (m(x) - y).pow(2).mean()
    loss.backward()
    opt.step()
    return loss.item()


x = torch.arange(32., device=DEV).view(8, 4) / 32
y = x.sum(1, keepdim=True).sin()
model, opt = make()
print("train", [round(step(model, opt, x, y), 5) for _ in range(2)])

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "ckpt.pt")
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 2}, path)
    ckpt = torch.load(path, map_location="cpu")

print("loaded", ckpt["epoch"], sorted(ckpt), [str(v.device) for v in ckpt["model"].values()],
      ckpt["optim"]["state"][0]["step"].item())
model2, opt2 = make()
model2.load_state_dict(ckpt["model"])
model2.to(DEV)
opt2.load_state_dict(ckpt["optim"])
same = all(torch.equal(p, q) for p, q in zip(model.parameters(), model2.parameters()))
state_same = all(torch.equal(opt.state[p]["exp_avg_sq"], opt2.state[q]["exp_avg_sq"])
                 for p, q in zip(model.parameters(), model2.parameters()))
print("restored", same, state_same, all(p.device.type == DEV for p in model2.parameters()),
      opt2.state[next(model2.parameters())]["exp_avg"].device.type == DEV)

for _ in range(3):
    a, b = step(model, opt, x, y), step(model2, opt2, x, y)
    print("continue", round(a, 5), a == b)
print("final", all(torch.equal(p, q) for p, q in zip(model.parameters(), model2.parameters())))
