# Two ways to fix the race.
#
# First, synchronize the default stream before handing A to the side
# stream (simple, but the host waits). Then the usual fix: s.wait_stream()
# makes s wait, on the device, for what the default stream has queued so
# far, and the default stream waits for s before it touches D. Neither
# part may be reported by the sanitizer; on the timeline, look for the
# wait arrows between the two stream rows.
import torch
cuda = torch.device("cuda")
s = torch.cuda.Stream()
A = torch.randn((1, 10), device=cuda)
default_stream = torch.cuda.current_stream()
print("Default Stream: {}".format(default_stream))
torch.cuda.Stream.synchronize(default_stream)
for i in range(100):
    with torch.cuda.stream(s):
        if i == 0:
            print("current stream: {}".format(torch.cuda.current_stream()))
        B = torch.sum(A)
print(B.shape)

# the idiomatic fix: order s after the work already queued on the default stream
C = torch.randn((1000, 1000), device=cuda)
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    D = torch.sum(C)
torch.cuda.current_stream().wait_stream(s)
print(D.device)
