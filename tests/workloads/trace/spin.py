# torch.cuda._sleep keeps the default stream busy: normal_ queued after it
# still runs when sum() on the side stream starts (the gallery's race).
import torch
s = torch.cuda.Stream()
torch.cuda._sleep(15000)
A = torch.empty((100, 100), device='cuda').normal_(0.0, 1.0)
with torch.cuda.stream(s):
    B = torch.sum(A)
torch.cuda.synchronize()
