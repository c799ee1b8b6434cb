# torch._foreach_addcmul(_)/addcdiv(_) give the single-tensor ops' bits,
# as PyTorch 1.13's CPU path (which calls addcmul_/addcdiv_ per tensor)
# does: addcmul is one fused multiply-add, not three rounded ops. Hashes of
# the results' exact values, on CPU and on simulated CUDA tensors.
import hashlib

import torch


def digest(ts):
    text = " ".join(float(v).hex() for t in ts for v in t.cpu().reshape(-1).tolist())
    return hashlib.md5(text.encode()).hexdigest()[:12]


def results(s, a, b):
    out = {}
    x = [t.clone() for t in s]
    torch._foreach_addcmul_(x, a, b, 0.001)
    out["addcmul_"] = digest(x)
    x = [t.clone() for t in s]
    for t, y, z in zip(x, a, b):
        t.addcmul_(y, z, value=0.001)
    out["addcmul_ one by one"] = digest(x)
    x = [t.clone() for t in s]
    torch._foreach_addcdiv_(x, a, b, [-0.01, 0.02, 0.3])
    out["addcdiv_ scalars"] = digest(x)
    out["addcmul"] = digest(torch._foreach_addcmul(s, a, b, 0.5))
    out["addcdiv"] = digest(torch._foreach_addcdiv(s, a, b, 0.25))
    return out


torch.manual_seed(0)
for dt in (torch.float32, torch.float64):
    base = [torch.randn(1000, dtype=dt) for _ in range(3)]
    t1 = [torch.randn(1000, dtype=dt) for _ in range(3)]
    t2 = [torch.rand(1000, dtype=dt).add(0.5) for _ in range(3)]
    cpu = results(base, t1, t2)
    for name, value in cpu.items():
        print(dt, name, value)
    # Tensorscope's simulated CUDA tensors: the same bits (PyTorch here has
    # no GPU, so nothing is printed unless they differ)
    if torch.cuda.is_available():
        dev = results(*([x.cuda() for x in xs] for xs in (base, t1, t2)))
        for name in cpu:
            if dev[name] != cpu[name]:
                print(dt, name, "differs on cuda:", dev[name])
