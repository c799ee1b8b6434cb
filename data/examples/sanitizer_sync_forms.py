# Five ways to order two streams, and one that only looks like it.
#
# Each block writes a tensor on the default stream and reads it on the side
# stream s. Run with the sanitizer on: the five synchronized blocks are
# quiet; the last one records its event on the wrong stream (s itself), so
# waiting on it orders nothing and the read of E is reported as a race,
# with both lines marked in the editor.
import torch

s = torch.cuda.Stream()

# 1. an event recorded after the write, waited on by s
A = torch.empty(256, 256, device="cuda").normal_()
done = torch.cuda.Event()
done.record()
s.wait_event(done)
with torch.cuda.stream(s):
    a = A.sum()

# 2. s waits for everything queued on the default stream so far
B = torch.empty(256, 256, device="cuda").normal_()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    b = B.sum()

# 3. the host waits for the default stream
C = torch.empty(256, 256, device="cuda").normal_()
torch.cuda.current_stream().synchronize()
with torch.cuda.stream(s):
    c = C.sum()

# 4. the host waits for an event
D = torch.empty(256, 256, device="cuda").normal_()
torch.cuda.current_stream().record_event().synchronize()
with torch.cuda.stream(s):
    d = D.sum()

# 5. the host waits for the whole device
E = torch.empty(256, 256, device="cuda").normal_()
torch.cuda.synchronize()
print("five synchronized reads, no report so far")

# The mistake: the event is recorded on s, not where E is written.
E.mul_(2)
wrong = torch.cuda.Event()
wrong.record(s)
s.wait_event(wrong)
with torch.cuda.stream(s):
    e = E.sum()
print("without the sanitizer the race goes unnoticed")
