# An event recorded on the default stream after the write, waited on by
# the side stream before the read: ordered, no report.
import torch
s = torch.cuda.Stream()
A = torch.empty((100, 100), device="cuda").normal_(0.0, 1.0)
e = torch.cuda.Event()
e.record()
s.wait_event(e)
with torch.cuda.stream(s):
    B = torch.sum(A)
print("ok")
