# GradScaler (torch.cuda.amp and torch.amp): a step skipped on an inf or a
# NaN with the scale backed off, growth after growth_interval good steps,
# unscale_ before clip_grad_norm_, its errors, state_dict. The oracle's
# GradScaler needs CUDA: expected written from PyTorch 1.13's grad_scaler.py.
import torch
from torch import nn

torch.manual_seed(0)

# the training loop, unchanged
model = nn.Linear(64, 64).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.cuda.amp.GradScaler()
x = torch.randn(8, 64, device="cuda")
for _ in range(3):
    opt.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        out = model(x)
        assert out.dtype == torch.float16
        loss = out.float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
print(model.weight.dtype, model.weight.grad.dtype, scaler.get_scale() > 0, scaler.get_scale(),
      scaler._get_growth_tracker())

# defaults
s = torch.cuda.amp.GradScaler()
print(s.get_scale(), s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval(), s.is_enabled(),
      s._get_growth_tracker())
print(isinstance(torch.amp.GradScaler("cuda"), torch.amp.GradScaler))

# one parameter, lr 1: w -= grad
w = nn.Parameter(torch.ones(2, device="cuda"))
opt = torch.optim.SGD([w], lr=1.0)
scaler = torch.cuda.amp.GradScaler(init_scale=4.0, growth_interval=2)


def iteration(coef):
    opt.zero_grad()
    loss = (w * torch.tensor(coef, device="cuda")).sum()
    scaled = scaler.scale(loss)
    scaled.backward()
    scaler.step(opt)
    scaler.update()
    print(scaled.item(), w.tolist(), w.grad.tolist(), scaler.get_scale(), scaler._get_growth_tracker())


iteration([1.0, 2.0])            # good: tracker 1
iteration([float("inf"), 1.0])   # inf: step skipped, scale halved, tracker 0
iteration([float("nan"), 1.0])   # NaN: the same
iteration([1.0, 1.0])            # good: tracker 1
iteration([1.0, 1.0])            # good: growth_interval reached, scale doubled

# unscale_, then clip the true gradients
opt.zero_grad()
scaler.scale((w * torch.tensor([3.0, 4.0], device="cuda")).sum()).backward()
print("scaled grad", w.grad.tolist())
scaler.unscale_(opt)
print("unscaled grad", w.grad.tolist())
norm = torch.nn.utils.clip_grad_norm_([w], 1.0)
print("norm", norm.item(), [round(g, 4) for g in w.grad.tolist()])
try:
    scaler.unscale_(opt)
except RuntimeError as e:
    print("RuntimeError", e)
scaler.step(opt)
try:
    scaler.step(opt)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    scaler.unscale_(opt)
except RuntimeError as e:
    print("RuntimeError", e)
scaler.update()
print([round(v, 4) for v in w.tolist()], scaler.get_scale())

# a new scale by hand
scaler.update(new_scale=8.0)
print("new scale", scaler.get_scale())
scaler.update(torch.full((1,), 16.0, device="cuda"))
print("new scale", scaler.get_scale())

# nested outputs keep their structure
a = torch.ones(2, device="cuda")
scaled = scaler.scale([a, (a * 2, a * 3)])
print(type(scaled).__name__, type(scaled[1]).__name__, scaled[0].tolist(), scaled[1][1].tolist())
try:
    scaler.scale([a, 3])
except ValueError as e:
    print("ValueError", e)

# state_dict
sd = scaler.state_dict()
print(sorted(sd.items()))
other = torch.cuda.amp.GradScaler()
other.load_state_dict(sd)
print(other.get_scale(), other.get_growth_interval(), other._get_growth_tracker())
try:
    other.load_state_dict({})
except RuntimeError as e:
    print("RuntimeError", e)

# disabled: a pass-through
off = torch.cuda.amp.GradScaler(enabled=False)
t = torch.ones(1, device="cuda")
print(off.scale(t) is t, off.get_scale(), off.state_dict(), off.is_enabled())

# float16 gradients cannot be unscaled
hw = nn.Parameter(torch.ones(2, device="cuda", dtype=torch.float16))
hopt = torch.optim.SGD([hw], lr=1.0)
hs = torch.cuda.amp.GradScaler()
hs.scale(hw.float().sum()).backward()
try:
    hs.step(hopt)
except ValueError as e:
    print("ValueError", e)

# update() before any scale()
try:
    torch.cuda.amp.GradScaler().update()
except AssertionError as e:
    print("AssertionError", e)

# the two kernels, called directly: bfloat16 and float64 gradients, a scale
# whose growth would overflow stays, PyTorch's checks
g = [torch.tensor([2.0, 4.0], device="cuda", dtype=torch.bfloat16),
     torch.tensor([1.0, 3.0], device="cuda", dtype=torch.float64)]
found = torch.zeros(1, device="cuda")
torch._amp_foreach_non_finite_check_and_unscale_(g, found, torch.full((1,), 0.5, device="cuda"))
print([t.tolist() for t in g], [t.dtype for t in g], found.item())
scale = torch.full((1,), 2.0 ** 127, device="cuda")
tracker = torch.zeros(1, dtype=torch.int32, device="cuda")
torch._amp_update_scale_(scale, tracker, torch.zeros(1, device="cuda"), 2.0, 0.5, 1)
print(scale.item() == 2.0 ** 127, tracker.item())
for bad in (torch.zeros(1, device="cuda"), torch.zeros(2, dtype=torch.int32, device="cuda")):
    try:
        torch._amp_update_scale_(scale, bad, torch.zeros(1, device="cuda"), 2.0, 0.5, 1)
    except RuntimeError as e:
        print("RuntimeError", e)
try:
    torch._amp_foreach_non_finite_check_and_unscale_(g, found, torch.ones(1, device="cuda", dtype=torch.float64))
except RuntimeError as e:
    print("RuntimeError", e)
