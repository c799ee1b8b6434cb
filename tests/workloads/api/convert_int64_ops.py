# Conversions into float32 and float64 from every real dtype (typed loops),
# an int64 rounded once as c10's static_cast, and int64 binary ops and
# comparisons with broadcasting, against python3-torch.
import torch
torch.set_printoptions(precision=10)
vals = [0, 1, -1, 127, -128, 255, 2**31 - 1, -2**31, 2**53 + 1, 2**62 + 2**38 + 1, -2**63]
for dt in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool):
    x = torch.tensor(vals).to(dt)
    print(dt, x.to(torch.float32).tolist(), x.double().tolist(), x[::2].float().tolist())
f = torch.tensor([1.5, -2.5, float('nan'), float('inf'), 1e-45, 3.4e38, -0.0, 16777217.0], dtype=torch.float64)
print(f.float().tolist(), f.float().double().tolist(), torch.signbit(f.float()).tolist())
print(torch.tensor([True, False]).float(), (torch.arange(6) > 2).float().mean())
a = torch.tensor([5, -7, 0, 2**62, -2**62, 3, 9])
b = torch.tensor([2, 3, -1, 4, -1, -3, 9])
print(a + 3, a * 2, a == 0, a > b, a.unsqueeze(1) == a[:3], torch.logical_and(a, b), torch.pow(a[:3], 2), a // 2, a % 4)
print(torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"))
for f in ("add", "sub", "mul", "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor", "remainder", "floor_divide", "maximum", "minimum", "fmod"):
    print(f, getattr(torch, f)(a, b), getattr(torch, f)(a, b[:1]), getattr(torch, f)(a.unsqueeze(1)[:3], b[:2]))
a = torch.tensor([2**62 + 2**38 + 1, 3, -2**53 - 1]); f = torch.tensor([0., 0.5, 1.])
print((a + f).tolist(), (f * a).tolist(), torch.where(torch.tensor([True, False, True]), a.float(), f).tolist(), a.to(torch.float16).tolist())
