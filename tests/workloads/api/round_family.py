# abs, floor, ceil, trunc, round and reciprocal of float32 in their own
# loops (rint for nearbyint), with halves, signed zeros, NaN, infinities,
# subnormals and large values, against python3-torch.
import torch, hashlib
vals = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.0, 0.0, float('nan'), float('inf'), float('-inf'), 1e-45, -1e-45, 8388607.5, 16777217.0, -3.7, 3.2, 1e30, 0.49999997]
x = torch.tensor(vals * 3)
for f in ("abs", "floor", "ceil", "trunc", "round", "reciprocal", "frac", "sign"):
    y = getattr(x, f)()
    print(f, [str(v) for v in y.tolist()[:19]], torch.signbit(y).tolist()[:19])
g = torch.Generator().manual_seed(0)
z = torch.randn(1000, generator=g) * 100
h = lambda t: hashlib.md5(t.numpy().tobytes()).hexdigest()[:10]
print([h(getattr(z, f)()) for f in ("abs", "floor", "ceil", "trunc", "round", "reciprocal")], h(z[::3].round()), h(z.clone().floor_()))
