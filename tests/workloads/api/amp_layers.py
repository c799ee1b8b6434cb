# Autocast on the layers and compositions merged after autocast itself:
# convolution, prelu, addmm/baddbmm/addbmm/mv/addmv/addr run in the lower
# precision, group_norm/logsumexp/norms/cdist in float32, dot promotes,
# pooling and batch norm keep their input's dtype (PyTorch's
# autocast_mode.cpp lists; the oracle has no CUDA, so this is written by
# hand from them). CPU autocast: convolution in bfloat16.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
c = nn.Conv2d(3, 4, 3).cuda()
x = torch.randn(1, 3, 8, 8, device="cuda")
m = torch.ones(2, 3, device="cuda")
with torch.autocast("cuda", dtype=torch.float16):
    y = c(x)
    print("conv2d", y.dtype, "max_pool2d", F.max_pool2d(y, 2).dtype,
          "batch_norm", nn.BatchNorm2d(4).cuda()(y).dtype, "group_norm", F.group_norm(y, 2).dtype)
    print("prelu", F.prelu(y, torch.ones(1, device="cuda")).dtype)
    print("addmm", torch.addmm(torch.zeros(2, 2, device="cuda"), m, m.t()).dtype,
          "mv", torch.mv(m, torch.ones(3, device="cuda")).dtype,
          "addmv", torch.addmv(torch.zeros(2, device="cuda"), m, torch.ones(3, device="cuda")).dtype,
          "addr", torch.addr(torch.zeros(2, 3, device="cuda"), torch.ones(2, device="cuda"),
                             torch.ones(3, device="cuda")).dtype)
    b = torch.ones(2, 2, 3, device="cuda")
    print("baddbmm", torch.baddbmm(torch.zeros(2, 2, 2, device="cuda"), b, b.transpose(1, 2)).dtype,
          "addbmm", torch.addbmm(torch.zeros(2, 2, device="cuda"), b, b.transpose(1, 2)).dtype)
    h = torch.ones(3, device="cuda").half()
    print("dot", torch.dot(h, torch.ones(3, device="cuda")).dtype,
          "logsumexp", torch.logsumexp(h, 0).dtype, "norm", torch.norm(h).dtype,
          "cdist", torch.cdist(m.half()[None], m[None]).dtype)
    y.float().sum().backward()
print("weight grad", c.weight.grad.dtype, c.bias.grad.dtype)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("cpu conv2d", c.cpu()(x.cpu()).dtype)
