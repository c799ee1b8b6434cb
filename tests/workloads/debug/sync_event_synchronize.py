# The host waits for an event recorded after the write: no report.
import torch
s = torch.cuda.Stream()
A = torch.empty((100, 100), device="cuda").normal_(0.0, 1.0)
e = torch.cuda.current_stream().record_event()
e.synchronize()
with torch.cuda.stream(s):
    B = torch.sum(A)
print("ok")
