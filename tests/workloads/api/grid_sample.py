# F.affine_grid and F.grid_sample (#16): the grid for both align_corners,
# bilinear and nearest sampling with zeros, border and reflection
# padding, gradients for the input and (bilinear) the affine matrices.
# The expected output is what Debian's python3-torch 1.13 prints.
import torch, torch.nn.functional as F, warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
th = torch.tensor([[[0.9, 0.1, 0.05], [-0.2, 1.1, 0.0]], [[1.2, 0.0, -0.3], [0.3, 0.8, 0.2]]], requires_grad=True)
for ac in (False, True):
    g = F.affine_grid(th, (2, 2, 3, 4), align_corners=ac)
    print("grid", ac, [round(v, 4) for v in g.reshape(-1)[:8].tolist()])
x = torch.randn(2, 2, 3, 4, requires_grad=True)
for mode in ("bilinear", "nearest"):
    for pad in ("zeros", "border", "reflection"):
        for ac in (False, True):
            g = F.affine_grid(th, (2, 2, 5, 6), align_corners=ac) * 1.3
            o = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac)
            gx, gt = torch.autograd.grad(o.sum(), (x, th), allow_unused=True)
            print(mode, pad, ac, [round(v, 4) for v in o.reshape(-1)[:6].tolist()], round(o.sum().item(), 4),
                  round(gx.abs().sum().item(), 4), round(gt.abs().sum().item(), 4) if mode == "bilinear" else "")
print(F.grid_sample(x, torch.zeros(2, 1, 1, 2)).reshape(-1).tolist()[:2])
for bad in (lambda: F.grid_sample(x, th, mode="cubic"), lambda: F.grid_sample(x, th, padding_mode="wrap")):
    try: bad()
    except Exception as e: print(type(e).__name__, e)
