# The token ids are written on the default stream and looked up on a side
# stream that never waits for it: the sanitizer reports embedding's read of
# its indices argument.
import torch
table = torch.ones(16, 4, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
ids = torch.zeros(8, dtype=torch.int64, device="cuda")
ids.fill_(3)
with torch.cuda.stream(s):
    vectors = torch.nn.functional.embedding(ids, table)
print("not reached")
