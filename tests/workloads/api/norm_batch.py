import torch, torch.nn as nn, torch.nn.functional as F
from nncheck import errors, on_devices, r


def run(DEV):
    torch.manual_seed(0)
    bn = nn.BatchNorm2d(3).to(DEV)
    print(bn, sorted(bn.state_dict().keys()))
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.0, 2.0, 0.5]))
        bn.bias.copy_(torch.tensor([0.0, 0.1, -0.2]))
    for step in range(3):
        x = (torch.randn(4, 3, 5, 5) * (step + 1) + step).to(DEV).requires_grad_()
        y = bn(x)
        (y * torch.arange(y.numel(), dtype=torch.float32).reshape(y.shape).to(DEV) / 100).sum().backward()
        print(step, y.grad_fn.name(), r(y.sum()), r(y[0, :, 0, :3]), r(x.grad[1, :, 2, :3]))
        print(" stats", r(bn.running_mean), r(bn.running_var), bn.num_batches_tracked.item())
        print(" grads", r(bn.weight.grad), r(bn.bias.grad))
        bn.zero_grad()
    bn.eval()
    x = torch.randn(2, 3, 4, 4).to(DEV).requires_grad_()
    y = bn(x)
    y.sum().backward()
    print("eval", y.grad_fn.name(), r(y[0, :, 0, :3]), r(x.grad[0, :, 0, :2]), r(bn.weight.grad), r(bn.bias.grad))
    b1 = nn.BatchNorm1d(4, momentum=None, affine=False).to(DEV)
    print(b1)
    for step in range(3):
        x = torch.randn(6, 4).to(DEV).requires_grad_()
        y = b1(x)
        y.pow(2).sum().backward()
        print("bn1d", r(y[:2]), r(x.grad[:2]), r(b1.running_mean), r(b1.running_var))
    x = torch.randn(3, 4, 5).to(DEV)
    print("bn1d3", r(b1(x)[0, 0]))
    b5 = nn.BatchNorm3d(2, momentum=0.3).to(DEV)
    x = torch.randn(2, 2, 3, 2, 2).to(DEV).requires_grad_()
    y = b5(x)
    y.pow(2).sum().backward()
    print(b5, "bn3d", r(y[0, :, 0, 0]), r(x.grad[1, :, 1, 0]), r(b5.running_var), r(b5.weight.grad))
    b3 = nn.BatchNorm2d(2, track_running_stats=False).to(DEV)
    b3.eval()
    print(b3, r(b3(torch.randn(2, 2, 2, 2).to(DEV))[0, 0]))
    x = torch.randn(2, 3, 3, 3).double().to(DEV).requires_grad_()
    w = torch.randn(3).double().to(DEV).requires_grad_()
    y = F.batch_norm(x, None, None, w, None, True)
    y.sum().backward()
    print("f64", r(y[0, 0], 8), r(x.grad[0, 0], 8), r(w.grad, 8))
    errors([lambda: F.batch_norm(torch.randn(1, 3).to(DEV), None, None, training=True),
            lambda: nn.BatchNorm2d(3).to(DEV)(torch.randn(3, 4, 4).to(DEV)),
            lambda: nn.BatchNorm1d(3).to(DEV)(torch.randn(3, 4, 4, 4).to(DEV)),
            lambda: F.batch_norm(torch.randn(4, 3).to(DEV), torch.zeros(4).to(DEV), torch.ones(4).to(DEV), training=True)])


on_devices(run)
