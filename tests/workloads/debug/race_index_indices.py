# The indices are written on a side stream and used on the default stream
# without waiting: the sanitizer reports aten::index's read of its indices
# argument (the op table's schema and argument names).
import torch
t = torch.zeros(4, device="cuda")
idx = torch.zeros(2, dtype=torch.int64, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    idx.fill_(1)
try:
    y = t[idx]
except Exception as e:  # caught: the traceback would show the torch package's frames
    print(type(e).__name__)
