# Float sums and means in PyTorch's order and precision (cascade_sum:
# four levels, four interleaved runs, eight float lanes): every result's
# bits against python3-torch, over layouts that take each of its loops.
import hashlib
import struct
import torch

torch.manual_seed(0)


def bits(t):
    t = t.detach().reshape(-1)
    fmt = "<%d%s" % (t.numel(), "f" if t.dtype == torch.float32 else "d")
    return hashlib.sha1(struct.pack(fmt, *t.tolist())).hexdigest()[:12]


base = {
    "vec1000": torch.randn(1000),
    "odd37": torch.randn(37),
    "big100k": torch.randn(100003),
    "m7x13": torch.randn(7, 13),
    "m64x33": torch.randn(64, 33),
    "m5x300": torch.randn(5, 300),
    "m300x5": torch.randn(300, 5),
    "t3x40x17": torch.randn(3, 40, 17),
    "transposed": torch.randn(33, 64).t(),
    "step": torch.randn(40, 50)[:, ::3],
    "cl": torch.randn(4, 6, 9, 11).to(memory_format=torch.channels_last),
    "permuted": torch.randn(5, 6, 7).permute(1, 2, 0),
    "expanded": torch.randn(1, 50).expand(20, 50),
    "big2d": torch.randn(257, 129),
}
for name, x in list(base.items()):
    base[name + "_f64"] = x.double()

for name, x in base.items():
    results = [x.sum(), x.mean()]
    for d in range(x.dim()):
        results += [x.sum(d), x.mean(d, keepdim=True)]
    if x.dim() >= 2:
        results += [x.sum((0, 1)), x.sum((-1, 0)), x.mean((0, -1))]
    if x.dim() >= 3:
        results += [x.sum((0, 2)), x.sum((1, 2))]
    print("%-14s %s" % (name, " ".join(bits(r) for r in results)))

# what a user prints
x = torch.randn(64, 10)
print(x.sum().item(), x.mean().item(), x.sum(0)[:3].tolist())
print(torch.nn.functional.mse_loss(x, torch.zeros(64, 10)).item(), x.var().item(), x.std(1)[:2].tolist())
print(torch.tensor([-0.0, -0.0]).sum().item(), torch.tensor([]).sum().item(), torch.empty(0, 3).mean(0).tolist())
