# The side stream waits before the event is recorded: a wait on an event
# never recorded is a no-op, so the read races.
import torch
s = torch.cuda.Stream()
e = torch.cuda.Event()
s.wait_event(e)
A = torch.empty((100, 100), device="cuda").normal_(0.0, 1.0)
e.record()
with torch.cuda.stream(s):
    B = torch.sum(A)
print("not reached")
