# Read back by test-workload-trace: the line numbers below are asserted.
import torch
m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).cuda()
m = torch.cuda.make_graphed_callables(m, (torch.zeros(4, 8, device="cuda", requires_grad=True),))
x = torch.ones(4, 8, device="cuda", requires_grad=True)
torch.cuda.synchronize()
out = m(x)                # line 7: the forward graph's replay
out.sum().backward()      # line 8: the backward graph's replay
torch.cuda.synchronize()
