# Read back by test-workload-trace: the line numbers below are asserted.
import torch
x = torch.randn(64, 32, device="cuda")
y = torch.randn(32, device="cuda")
z = torch.empty(64, 32, device="cuda")            # line 5: out's block
torch.add(x, y, out=z)                            # line 6: one kernel into z, no allocation
w = torch.empty(0, device="cuda")
torch.mul(x, y, out=w)                            # line 8: w resized: an allocation
torch.cuda.synchronize()
torch.sub(x, x, alpha=0.5, out=z)                 # line 10: with alpha: one kernel into z too
torch.cuda.synchronize()
