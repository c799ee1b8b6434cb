# A race between two streams.
#
# normal_() is queued on the default stream, sum() on the side stream s,
# and nothing orders the two: sum() can start reading A while normal_() is
# still writing it. A short spin kernel (torch.cuda._sleep, which PyTorch's
# own stream tests use) keeps the default stream busy first, as earlier
# work would: on the timeline sum() starts while normal_() runs; with the
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
torch.cuda._sleep(15000)  # about 7.6 µs of earlier work on the default stream
A = torch.empty((100, 100), device=cuda).normal_(0.0, 1.0)
with torch.cuda.stream(s):
    # sum() may start execution before normal_() finishes!
    B = torch.sum(A)
