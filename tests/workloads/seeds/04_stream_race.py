# Seed example 04 (adapted from PyTorch's CUDA semantics notes).
# A deliberate race: normal_() runs on the default stream, sum() on a side
# stream with nothing ordering them. Also checks that torch.cuda.stream()
# without its argument raises Python's TypeError. The timeline should show
# the overlap and the sanitizer should flag the read of A.
# What it must print is in 04_stream_race.expected.
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
