# The event is recorded on the side stream itself, not on the stream that
# wrote A: waiting on it orders nothing, the read races.
import torch
s = torch.cuda.Stream()
A = torch.empty((100, 100), device="cuda").normal_(0.0, 1.0)
e = torch.cuda.Event()
e.record(s)
s.wait_event(e)
with torch.cuda.stream(s):
    B = torch.sum(A)
print("not reached")
