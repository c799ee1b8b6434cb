# race_reuse.py fixed: x.record_stream(s) before the free makes the
# caching allocator wait for s's work before it hands the block out again.
import torch
s = torch.cuda.Stream()
x = torch.ones(1 << 20, device="cuda")
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    torch.cuda._sleep(20000)
    y = x.sum()
x.record_stream(s)
del x
z = torch.zeros(1 << 20, device="cuda")
torch.cuda.synchronize()
print("done")
