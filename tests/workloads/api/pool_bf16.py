import torch, torch.nn.functional as F
from nncheck import on_devices


def run(dev):
    torch.manual_seed(0)
    r = lambda t: [round(v, 3) for v in t.float().flatten().tolist()[:8]]
    x = torch.randn(2, 3, 6, 6).to(dev).to(torch.bfloat16).requires_grad_()
    for name, f in [("mp", lambda x: F.max_pool2d(x, 2)), ("ap", lambda x: F.avg_pool2d(x, 3, 2, 1)),
                    ("aap", lambda x: F.adaptive_avg_pool2d(x, 4)), ("amp", lambda x: F.adaptive_max_pool2d(x, 4))]:
        y = f(x)
        y.float().sum().backward()
        print(name, y.dtype, r(y), x.grad.dtype, r(x.grad))
        x.grad = None


on_devices(run)
