# The host waits for the default stream before queueing the read: no report.
import torch
s = torch.cuda.Stream()
A = torch.empty((100, 100), device="cuda").normal_(0.0, 1.0)
torch.cuda.current_stream().synchronize()
with torch.cuda.stream(s):
    B = torch.sum(A)
print("ok")
