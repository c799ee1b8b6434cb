# Read back by test-workload-trace: the line numbers below are asserted.
import sys
import torch
path = sys.argv[1]
torch.manual_seed(0)
ps = [torch.nn.Parameter(torch.randn(8, 4).cuda()) for _ in range(10)]
opt = torch.optim.Adam(ps, lr=0.01, foreach=path == "foreach" if path != "fused" else None, fused=path == "fused")
for p in ps:
    p.grad = torch.randn(8, 4).cuda()
torch.cuda.synchronize()
opt.step()                # line 11: the step's launches
torch.cuda.synchronize()
