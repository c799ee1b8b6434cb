# Reads back by test-workload-trace: the line numbers below are asserted.
import sys
import torch


def step(x):
    return x + 1          # line 7: aten::add from inside a function


a = torch.ones(1024, device='cuda')
b = step(a)
host = torch.ones(1 << 20)
pageable = host.cuda()                            # line 13: blocking H2D
pinned = host.pin_memory().cuda(non_blocking=True)  # line 14: async H2D
torch.cuda.synchronize()
if len(sys.argv) > 1 and sys.argv[1] == "raise":
    raise ValueError("the trace must survive this")
if len(sys.argv) > 1 and sys.argv[1] == "exit":
    sys.exit(3)
