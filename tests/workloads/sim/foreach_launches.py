# An Adam step on 10 CUDA params: kernel launches per path, and the paths'
# values (the loop's, bit for bit); GradScaler's unscale_ is one launch for
# all the gradients, after PyTorch 1.13's four small ones: the scale cast to
# double, its reciprocal, cast back to float (two copy_ kernels: casts are
# kernels, not memcpys), and found_inf filled with 0.
import torch

torch.manual_seed(0)
init = [torch.randn(8, 4) for _ in range(10)]
grads = [torch.randn(8, 4) for _ in range(10)]


def step(**kw):
    ps = [p.clone().cuda().requires_grad_() for p in init]
    opt = torch.optim.Adam(ps, lr=0.01, **kw)
    for p, g in zip(ps, grads):
        p.grad = g.cuda()
    opt.step()  # the first step makes the state (one fill per buffer)
    torch.cuda.synchronize()
    before = torch._C._trace_count("kernel")
    opt.step()
    torch.cuda.synchronize()
    return torch._C._trace_count("kernel") - before, [p.detach().cpu() for p in ps]


n_loop, loop = step(foreach=False)
n_foreach, foreach = step(foreach=True)
n_default, default = step()
n_fused, fused = step(fused=True)
print("loop", n_loop, "foreach", n_foreach, "default", n_default, "fused", n_fused)
print("same values", all(torch.equal(a, b) and torch.equal(a, c) and torch.equal(a, d)
                         for a, b, c, d in zip(loop, foreach, default, fused)))

xs = [g.cuda() for g in grads]
before = torch._C._trace_count("kernel")
ys = torch._foreach_mul(xs, 2.0)
torch.cuda.synchronize()
print("_foreach_mul launches", torch._C._trace_count("kernel") - before,
      all(torch.equal(y.cpu(), g * 2.0) for y, g in zip(ys, grads)))
big = [torch.zeros(65536 * 200, device="cuda"), torch.zeros(65536 * 200, device="cuda")]
torch.cuda.synchronize()
before = torch._C._trace_count("kernel")
torch._foreach_add_(big, 1.0)
torch.cuda.synchronize()
print("400 chunks", torch._C._trace_count("kernel") - before)

model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).cuda()
scaler = torch.cuda.amp.GradScaler()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler.scale(model(torch.randn(3, 4, device="cuda")).sum()).backward()
torch.cuda.synchronize()
before = torch._C._trace_count("kernel")
scaler.unscale_(opt)
torch.cuda.synchronize()
print("unscale launches for 4 gradients", torch._C._trace_count("kernel") - before)
try:
    torch.optim.Adam([torch.zeros(2, requires_grad=True)], fused=True)
except RuntimeError as e:
    print(e)
try:
    torch.optim.Adam([init[0].cuda().requires_grad_()], fused=True, foreach=True).step()
except RuntimeError as e:
    print(e)
for device, kw in [("cpu", dict()), ("cuda", dict(foreach=True))]:
    try:
        torch.optim.AdamW([torch.zeros(2, device=device, requires_grad=True)], fused=True, **kw)
    except RuntimeError as e:
        print(e)
ps = [p.clone().cuda().requires_grad_() for p in init]
qs = [p.clone().cuda().requires_grad_() for p in init]
opts = [torch.optim.AdamW(ps, lr=0.01, foreach=False), torch.optim.AdamW(qs, lr=0.01, fused=True)]
for _ in range(2):
    for p, q, g in zip(ps, qs, grads):
        p.grad, q.grad = g.cuda(), g.cuda()
    for o in opts:
        o.step()
print("AdamW fused == loop", all(torch.equal(p, q) for p, q in zip(ps, qs)),
      sorted(opts[1].param_groups[0]), str(opts[1].state_dict()['state'][0]) == str(opts[0].state_dict()['state'][0]))

# clip_grad_norm_ on CUDA: one _foreach_norm and one _foreach_mul_ launch
ps = [torch.nn.Parameter(g.cuda()) for g in grads]
for p, g in zip(ps, init):
    p.grad = g.cuda()
torch.cuda.synchronize()
before = torch._C._trace_count("kernel")
total = torch.nn.utils.clip_grad_norm_(ps, 1.0)
torch.cuda.synchronize()
n_foreach = torch._C._trace_count("kernel") - before
ref = [torch.nn.Parameter(g.clone()) for g in grads]
for p, g in zip(ref, init):
    p.grad = g.clone()
ref_total = torch.nn.utils.clip_grad_norm_(ref, 1.0, foreach=False)
print("clip_grad_norm_ kernels", n_foreach, torch.equal(total.cpu(), ref_total),
      all(torch.equal(p.grad.cpu(), r.grad) for p, r in zip(ps, ref)))
