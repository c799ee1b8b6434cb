# index_put_ writes on a side stream and the default stream reads the same
# tensor without waiting: the sanitizer names index_put_'s schema (the op
# table's row) and its write to self.
import torch
t = torch.zeros(4, device="cuda")
idx = torch.tensor([1, 2], device="cuda")
v = torch.ones(2, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    t.index_put_((idx,), v)
y = t * 2
print("not reached")
