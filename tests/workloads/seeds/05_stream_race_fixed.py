# Seed example 05 (adapted from PyTorch's CUDA semantics notes).
# The same pattern made safe twice: once by synchronizing with the default
# stream first, once with wait_stream in both directions. No race here.
# What it must print is in 05_stream_race_fixed.expected.
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
