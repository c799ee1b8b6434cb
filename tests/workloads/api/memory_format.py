# Memory formats (#14/#16): torch.channels_last and channels_last_3d strides
# from to/contiguous/clone/empty/*_like (memory_format=...), is_contiguous
# with a format, Module.to(memory_format=) on 4-D parameters, a conv net
# on a channels_last input, empty_strided and preserve_format keeping a
# dense tensor's strides. The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch
torch.manual_seed(0)
import torch.nn as nn
for dev in ("cpu", "cuda" if torch.cuda.is_available() else "cpu"):
    x = torch.arange(24.).reshape(1, 2, 3, 4).to(dev)
    y = x.to(memory_format=torch.channels_last)
    print(torch.channels_last, y.stride(), y.is_contiguous(), y.is_contiguous(memory_format=torch.channels_last))
    print(y.contiguous().stride(), y.contiguous(memory_format=torch.channels_last) is y, (y == x).all().item())
    print(x.t().clone().stride() if x.dim() == 2 else x.transpose(1, 2).clone().stride())
    print(y.clone().stride(), y.clone(memory_format=torch.contiguous_format).stride())
    print(torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride())
    print(torch.empty_like(y).stride(), torch.zeros_like(y).stride(), torch.ones_like(x).stride())
    print(torch.empty(1, 2, 3, 4, 5, memory_format=torch.channels_last_3d).stride())
    for bad in (lambda: torch.ones(2, 3).to(memory_format=torch.channels_last),
                lambda: torch.ones(2, 3).contiguous(memory_format=torch.preserve_format),
                lambda: torch.ones(2, 3, 4).is_contiguous(memory_format=torch.channels_last)):
        try:
            print(bad())
        except Exception as e:
            print(type(e).__name__, e)
    m = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4)).to(dev)
    m = m.to(memory_format=torch.channels_last)
    print(m[0].weight.stride(), m[0].bias.stride(), m[0].weight.is_contiguous(memory_format=torch.channels_last))
    out = m(y)
    print(out.shape, round(out.abs().sum().item(), 3))
    print(torch.ones(1, 1, 1, 1).is_contiguous(memory_format=torch.channels_last), torch.ones(2, 3, 1, 1).stride())
    z = torch.ones(2, 3, 1, 1).to(memory_format=torch.channels_last)
    print(z.stride())
print(repr(torch.preserve_format), torch.contiguous_format, type(torch.channels_last).__name__)
t = torch.ones(2, 3).t()
print(torch.empty_like(t).stride(), t.clone().stride(), torch.empty_strided((2, 3), (1, 2)).stride(), torch.zeros_like(t).stride())
g = torch.ones(2, 3, requires_grad=True)
print(g.t().clone().grad_fn.name(), torch.ones(2, 3).t().contiguous(memory_format=torch.contiguous_format).stride())
print(torch.ones(4, 1, 2, 3).to(memory_format=torch.channels_last).stride(), torch.ones(1, 3, 1, 1).to(memory_format=torch.channels_last).stride())
