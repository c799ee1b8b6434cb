# wait_stream in both directions: no report.
import torch
s = torch.cuda.Stream()
A = torch.empty((100, 100), device="cuda").normal_(0.0, 1.0)
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    B = torch.sum(A)
torch.cuda.current_stream().wait_stream(s)
C = B * 2
print("ok")
