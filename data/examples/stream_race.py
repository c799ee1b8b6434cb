# A race between two streams.
#
# normal_() is queued on the default stream, sum() on the side stream s,
# and nothing orders the two: sum() can start reading A while normal_() is
# still writing it. On the timeline the two kernels overlap; with the
# sanitizer on, the read of A is reported as a race. Calling
# torch.cuda.stream() with no stream is a TypeError:
#   TypeError: stream() missing 1 required positional argument: 'stream'
import torch
cuda = torch.device('cuda')
try:
    torch.cuda.stream()
except TypeError as err:
    print("TypeError:", err)

s = torch.cuda.Stream()  # Create a new stream.
A = torch.empty((100, 100), device=cuda).normal_(0.0, 1.0)
with torch.cuda.stream(s):
    # sum() may start execution before normal_() finishes!
    B = torch.sum(A)
