# x is read on the side stream s, then freed without x.record_stream(s):
# the caching allocator hands its block straight back to the default
# stream, whose zeros() may overwrite it while s still reads it. With the
# argument "fixed" (race_reuse_fixed.py), x.record_stream(s) prevents it.
import sys

import torch
s = torch.cuda.Stream()
x = torch.ones(1 << 20, device="cuda")
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    torch.cuda._sleep(20000)
    y = x.sum()
if sys.argv[1:] == ["fixed"]:
    x.record_stream(s)
del x
z = torch.zeros(1 << 20, device="cuda")
torch.cuda.synchronize()
print("done")
