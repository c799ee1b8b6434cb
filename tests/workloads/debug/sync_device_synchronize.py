# torch.cuda.synchronize() between the write and the read: no report.
import torch
s = torch.cuda.Stream()
A = torch.empty((100, 100), device="cuda").normal_(0.0, 1.0)
torch.cuda.synchronize()
with torch.cuda.stream(s):
    B = torch.sum(A)
print("ok")
