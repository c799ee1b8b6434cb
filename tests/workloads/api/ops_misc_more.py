# signbit (from the float's bits: -0.0 and -nan count), pdist, frombuffer
# (memory shared with the buffer), Tensor.apply_ and map_ (#14). The
# expected output is what Debian's python3-torch 1.13 prints for this
# script.
import torch, warnings
warnings.simplefilter("ignore")
x = torch.tensor([-1.0, -0.0, 0.0, 2.0, float("nan"), -float("nan"), -float("inf")])
print(torch.signbit(x), x.signbit(), torch.signbit(torch.tensor([-1, 0, 3])), torch.signbit(x.double()), torch.signbit(x.half()))
a = torch.tensor([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0], [-1.0, 2.0]])
print(torch.pdist(a), torch.pdist(a, p=1), torch.pdist(a, 0), torch.pdist(a[:1]))
b = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00")
t = torch.frombuffer(b, dtype=torch.int32)
t[0] = 7
print(t, b[0], torch.frombuffer(b, dtype=torch.int32, count=1, offset=4), torch.frombuffer(b, dtype=torch.uint8)[:5])
y = torch.arange(4.)
y.apply_(lambda v: v * v + 1)
print(y)
y.map_(torch.tensor([1.0, 2.0, 3.0, 4.0]), lambda p, q: p - q)
print(y)
