# tests/gpu/new-kernels.py: the CUDA module's ABI 4 kernels (add/sub with
# alpha, threshold and ReLU's backward, softmax/log_softmax and their
# backwards, nll_loss and its backward, convolutions through im2col and
# col2im) on CUDA tensors against the same ops
# on CPU tensors: one line per case with the max abs difference and OK/FAIL.
#
#   tensorscope-cli run --backend=cuda tests/gpu/new-kernels.py
#
# (under G_MESSAGES_DEBUG=all a "no device kernel" line would say a case
# took the host fallback). Exits 1 if any case fails. The tolerances allow
# for CUDA's exp/log and a GPU's order of summation; add with alpha, the
# threshold ops and nll_loss without reduction should show 0.
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(0)
failed = []
TOL = {torch.float32: 1e-5, torch.float64: 1e-12, torch.float16: 2e-3}


def check(name, cpu, dev, dtype=torch.float32):
    dev = dev.cpu()
    if cpu.shape != dev.shape:
        print(f"{name:44s} shape {tuple(cpu.shape)} vs {tuple(dev.shape)} FAIL")
        failed.append(name)
        return
    a, b = cpu.double(), dev.double()
    same_inf = torch.equal(torch.isinf(a), torch.isinf(b)) and torch.equal(a[torch.isinf(a)], b[torch.isinf(b)])
    fin = torch.isfinite(a) & torch.isfinite(b)
    diff = (a[fin] - b[fin]).abs().max().item() if fin.any() else 0.0
    scale = max(1.0, a[fin].abs().max().item() if fin.any() else 1.0)
    ok = same_inf and torch.equal(torch.isnan(a), torch.isnan(b)) and diff <= TOL[dtype] * scale
    print(f"{name:44s} max abs diff {diff:.3e} {'OK' if ok else 'FAIL'}")
    if not ok:
        failed.append(name)


# add / sub with alpha (the optimizers' p.add_(g, alpha=-lr))
for dtype in (torch.float32, torch.float64, torch.float16):
    a, b = torch.randn(1000, 37).to(dtype), torch.randn(1000, 37).to(dtype)
    check(f"add alpha=-0.1 {dtype}", a.add(b, alpha=-0.1), a.cuda().add(b.cuda(), alpha=-0.1), dtype)
    check(f"sub alpha=3 {dtype}", a.sub(b, alpha=3), a.cuda().sub(b.cuda(), alpha=3), dtype)
    ca, da = a.clone(), a.cuda()
    ca.add_(b, alpha=0.01)
    da.add_(b.cuda(), alpha=0.01)
    check(f"add_ in place alpha=0.01 {dtype}", ca, da, dtype)

# threshold and ReLU's backward (threshold_backward)
for dtype in (torch.float32, torch.float64):
    x = torch.randn(64, 129).to(dtype)
    check(f"F.threshold(0.1, -2) {dtype}", F.threshold(x, 0.1, -2.0), F.threshold(x.cuda(), 0.1, -2.0), dtype)
    g = torch.randn(64, 129).to(dtype)
    grads = []
    for dev in ("cpu", "cuda"):
        xx = x.detach().to(dev).requires_grad_()
        (F.relu(xx) * g.to(dev)).sum().backward()
        grads.append(xx.grad)
    check(f"relu backward {dtype}", grads[0], grads[1], dtype)

# softmax / log_softmax and their backwards, last dim and another, long rows
for dtype in (torch.float32, torch.float64):
    for shape, dim in (((32, 10), 1), ((32, 10), 0), ((8, 5000), 1), ((4, 7, 33), 1), ((3, 1), 1)):
        x = (torch.randn(*shape) * 4).to(dtype)
        g = torch.randn(*shape).to(dtype)
        for log in (False, True):
            fn = F.log_softmax if log else F.softmax
            name = f"{'log_' if log else ''}softmax {shape} dim={dim} {dtype}"
            check(name, fn(x, dim), fn(x.cuda(), dim), dtype)
            grads = []
            for dev in ("cpu", "cuda"):
                xx = x.detach().to(dev).requires_grad_()
                (fn(xx, dim) * g.to(dev)).sum().backward()
                grads.append(xx.grad)
            check(name + " backward", grads[0], grads[1], dtype)
x = torch.tensor([[1.0, float("-inf"), 3.0], [float("-inf"), 0.0, 0.0]])
check("log_softmax with -inf", F.log_softmax(x, 1), F.log_softmax(x.cuda(), 1))

# nll_loss (and cross_entropy) forward and backward
for dtype in (torch.float32, torch.float64):
    x = torch.randn(300, 10).to(dtype)
    t = torch.randint(0, 10, (300,))
    t[::7] = 3
    w = torch.rand(10).to(dtype) + 0.5
    for weight in (None, w):
        for reduction in ("none", "mean", "sum"):
            for ignore in (-100, 3):
                name = f"nll_loss {reduction} w={weight is not None} ignore={ignore} {dtype}"
                outs, grads = [], []
                for dev in ("cpu", "cuda"):
                    xx = x.detach().to(dev).requires_grad_()
                    out = F.nll_loss(xx, t.to(dev), weight=None if weight is None else weight.to(dev),
                                     reduction=reduction, ignore_index=ignore)
                    (out * 2).sum().backward()
                    outs.append(out.detach())
                    grads.append(xx.grad)
                check(name, outs[0], outs[1], dtype)
                check(name + " backward", grads[0], grads[1], dtype)
img = torch.randn(2, 4, 5, 6)
tgt = torch.randint(0, 4, (2, 5, 6))
check("nll_loss2d mean", F.nll_loss(img, tgt), F.nll_loss(img.cuda(), tgt.cuda()))
check("cross_entropy mean", F.cross_entropy(x.float(), t), F.cross_entropy(x.float().cuda(), t.cuda()))

# convolutions as im2col + batched GEMM + col2im (groups 1, not transposed;
# the others take the host fallback), forward and backward
for dtype in (torch.float32, torch.float64):
    for label, xs, ws, kw in (("conv2d 3x3 pad1", (4, 3, 16, 16), (8, 3, 3, 3), dict(padding=1)),
                              ("conv2d stride2 dil2", (2, 5, 13, 11), (6, 5, 3, 2), dict(stride=2, dilation=2, padding=(2, 1))),
                              ("conv1d k5", (3, 4, 40), (7, 4, 5), dict(padding=2)),
                              ("conv3d k3", (2, 2, 6, 5, 4), (3, 2, 3, 3, 3), dict(padding=1))):
        fn = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}[len(xs)]
        x, w, b = torch.randn(*xs).to(dtype), torch.randn(*ws).to(dtype), torch.randn(ws[0]).to(dtype)
        res = {}
        for dev in ("cpu", "cuda"):
            xx, ww, bb = (t.detach().to(dev).requires_grad_() for t in (x, w, b))
            y = fn(xx, ww, bb, **kw)
            y.sum().backward()            # an expanded grad_output, as bench_conv.py's
            res[dev] = (y.detach(), xx.grad, ww.grad, bb.grad)
        for i, part in enumerate(("out", "grad input", "grad weight", "grad bias")):
            check(f"{label} {part} {dtype}", res["cpu"][i], res["cuda"][i], dtype)

# a few steps of the benchmark's MLP with SGD: every op above, on both devices
losses = {}
for dev in ("cpu", "cuda"):
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    xb, yb = torch.randn(32, 64).to(dev), torch.randint(0, 10, (32,)).to(dev)
    for _ in range(5):
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
    losses[dev] = loss.detach()
check("MLP, 5 SGD steps: last loss", losses["cpu"], losses["cuda"])

print("FAILED:", ", ".join(failed) if failed else "none")
sys.exit(1 if failed else 0)
