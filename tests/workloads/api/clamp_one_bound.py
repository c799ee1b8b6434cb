# torch.clamp/clip with one number bound: one launch whose elements equal to the
# bound stay (-0.0 against 0), NaN bounds as PyTorch 1.13 treats them (alone:
# ignored; beside another: NaN), int tensors, strided input and the gradient,
# against python3-torch.
import torch
for dt in (torch.float32, torch.float64):
    x = torch.tensor([float('nan'), -0.0, 0.0, -1.0, 2.0, float('inf'), 1e-40] * 3, dtype=dt)
    sb = lambda t: [str(v) for v in t.tolist()[:7]] + [torch.signbit(t).tolist()[:7]]
    for y in (torch.clamp(x, min=0), torch.clamp(x, max=-0.0), x.clamp(min=-0.0), x.clip(max=0.0), torch.clamp(x, 0, 1),
              torch.clamp(x, min=float('nan')), torch.clamp(x, max=float('nan')), torch.clamp(x, 0, float('nan')),
              torch.clamp(x, float('nan'), 1), torch.clamp(x, min=1), torch.clamp(x[::2], max=0.5), torch.clamp(x, -1e-40, 1e-41)):
        print(dt, y.dtype, sb(y))
    xi = torch.tensor([-3, 0, 5])
    print(torch.clamp(xi, min=0), torch.clamp(xi, max=1.5), torch.clamp(xi, min=-1.5).dtype)
    g = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], dtype=dt, requires_grad=True)
    torch.clamp(g, min=0.0).sum().backward(); print(g.grad)
    g.grad = None; torch.clamp(g, max=1.0).sum().backward(); print(g.grad)
try:
    torch.clamp(x)
except Exception as e:
    print(type(e).__name__, e)
