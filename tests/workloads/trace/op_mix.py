# Read back by test-workload-trace: the launches of the op mix's ops that
# PyTorch runs as one kernel (var: its std_var reduction; clamp with two
# number bounds: aten::clamp; argmax: aten::argmax, not aten::max; std;
# Tensor.norm(): aten::norm) (masked_fill: a clone's device copy, then one
# kernel), argv[1] calls of each, after one aten::gt for the mask.
import sys
import torch
n = int(sys.argv[1])
a = torch.arange(16.0).reshape(4, 4).cuda()
b = torch.ones(4, 4).cuda()
m = a > 6
for _ in range(n):
    torch.where(m, a, b)
    a.masked_fill(m, 0.0)
    torch.cat([a, b])
    torch.addcmul(a, a, b, value=0.5)
    a.var(1)
    a.clamp(-0.5, 0.5)
    a.argmax(1)
    a.std(1)
    a.norm()
torch.cuda.synchronize()
