# Read back by test-workload-trace: the line numbers below are asserted.
import torch
t = torch.arange(12., device='cuda')
t[t > 8] = -1             # line 4: aten::masked_fill_, no wait
picked = t[t < 3]         # line 5: nonzero brings the mask back and waits
rows = t[[0, 2]]          # line 6: aten::index
torch.cuda.synchronize()
