import torch, torch.nn.functional as F
from nncheck import on_devices


def run(DEV):
    torch.manual_seed(0)
    x = torch.randn(2,3,7,7).to(DEV).requires_grad_()
    for name, f in [("mp", lambda x: F.max_pool2d(x, 3, 2, 1)), ("mpc", lambda x: F.max_pool2d(x, 2, ceil_mode=True)),
                    ("mpd", lambda x: F.max_pool2d(x, 3, 1, 1, dilation=2)),
                    ("ap", lambda x: F.avg_pool2d(x, 3, 2, 1)), ("apn", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
                    ("apc", lambda x: F.avg_pool2d(x, 2, ceil_mode=True)), ("apd", lambda x: F.avg_pool2d(x, 3, 2, 1, divisor_override=2)),
                    ("aap", lambda x: F.adaptive_avg_pool2d(x, (3, None))), ("aap1", lambda x: F.adaptive_avg_pool2d(x, 1)),
                    ("amp", lambda x: F.adaptive_max_pool2d(x, (4, 3)))]:
        y = f(x)
        y.backward(torch.arange(y.numel(), dtype=torch.float32).reshape(y.shape).to(DEV))
        print(name, y.grad_fn.name(), tuple(y.shape), round(y.sum().item(), 4), round(x.grad.double().sum().item(), 3), [round(v, 4) for v in x.grad.flatten()[:8].tolist()])
        x.grad = None
    y, i = F.max_pool2d(x, 2, return_indices=True)
    print(i.flatten()[:10].tolist(), i.dtype)
    x1 = torch.randn(2,3,9).to(DEV).requires_grad_()
    for name, f in [("mp1", lambda x: F.max_pool1d(x, 3, 2, 1)), ("ap1", lambda x: F.avg_pool1d(x, 3, 2)),
                    ("aap1", lambda x: F.adaptive_avg_pool1d(x, 4)), ("amp1", lambda x: F.adaptive_max_pool1d(x, 4))]:
        y = f(x1)
        y.sum().backward()
        print(name, y.grad_fn.name(), tuple(y.shape), round(y.sum().item(), 4), [round(v, 4) for v in x1.grad.flatten()[:9].tolist()])
        x1.grad = None
    print(F.max_pool1d(x1, 2, return_indices=True)[1][0, 0].tolist())
    print(torch.nn.MaxPool2d(2), torch.nn.MaxPool1d(3, 2), torch.nn.AvgPool2d(3, 1, 1), torch.nn.AvgPool1d(3), torch.nn.AdaptiveAvgPool2d((1, 1)), torch.nn.AdaptiveAvgPool1d(4), torch.nn.AdaptiveMaxPool2d(2), torch.nn.AdaptiveMaxPool1d(3))


on_devices(run)
