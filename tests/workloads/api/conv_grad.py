# Convolutions forward and backward (ConvolutionBackward0) over the
# configurations training scripts use, on the CPU and on DEV; values and
# gradients rounded (BLAS sums in another order than PyTorch's kernels).
import torch
import torch.nn.functional as F

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def g4(v):
    return float("%.4g" % v)


def r(t):
    return [g4(v) for v in t.detach().cpu().flatten().tolist()]


def case(label, dev, fn, x_shape, w_shape, bias=True, dtype=torch.float32, **kw):
    torch.manual_seed(len(label))
    x = torch.randn(*x_shape, dtype=dtype).to(dev).requires_grad_()
    w = torch.randn(*w_shape, dtype=dtype).to(dev).requires_grad_()
    b = None
    if bias:
        b = torch.randn(w_shape[1] * kw.get("groups", 1) if fn.__name__.startswith("conv_t") else w_shape[0],
                        dtype=dtype).to(dev).requires_grad_()
    y = fn(x, w, b, **kw)
    print(label, list(y.shape), y.dtype, y.grad_fn.name() if y.grad_fn else None)
    print("  y", r(y)[:12], g4(y.sum().item()))
    g = torch.randn(*y.shape, dtype=dtype).to(dev)
    y.backward(g)
    print("  dx", r(x.grad)[:12], g4(x.grad.sum().item()))
    print("  dw", r(w.grad)[:12], g4(w.grad.sum().item()))
    if b is not None:
        print("  db", r(b.grad))


for i, dev in enumerate(["cpu", DEV]):
    print("== pass", i)
    case("plain", dev, F.conv2d, (2, 3, 6, 6), (4, 3, 3, 3))
    case("stride2 pad1", dev, F.conv2d, (2, 3, 7, 7), (4, 3, 3, 3), stride=2, padding=1)
    case("pad same", dev, F.conv2d, (1, 2, 5, 6), (3, 2, 3, 5), padding="same")
    case("pad valid", dev, F.conv2d, (1, 2, 5, 6), (3, 2, 3, 3), padding="valid")
    case("dilation2", dev, F.conv2d, (2, 2, 8, 8), (3, 2, 3, 3), dilation=2, padding=2)
    case("groups2", dev, F.conv2d, (2, 4, 5, 5), (6, 2, 3, 3), groups=2, padding=1)
    case("depthwise", dev, F.conv2d, (2, 4, 5, 5), (8, 1, 3, 3), groups=4)
    case("1x1", dev, F.conv2d, (2, 3, 4, 4), (5, 3, 1, 1))
    case("rect stride", dev, F.conv2d, (1, 2, 9, 7), (2, 2, 2, 3), stride=(2, 1), padding=(0, 1), bias=False)
    case("conv1d", dev, F.conv1d, (2, 3, 10), (4, 3, 3), stride=2, padding=1)
    case("conv1d same dil", dev, F.conv1d, (2, 3, 9), (2, 3, 3), padding="same", dilation=3)
    case("conv3d", dev, F.conv3d, (1, 2, 4, 5, 5), (3, 2, 2, 3, 3), padding=1, stride=(1, 2, 2))
    case("conv3d s1", dev, F.conv3d, (2, 2, 3, 4, 4), (2, 1, 2, 2, 3), padding=(0, 1, 1), groups=2)
    case("transposed", dev, F.conv_transpose2d, (2, 3, 4, 4), (3, 2, 3, 3), stride=2, padding=1, output_padding=1)
    case("transposed groups", dev, F.conv_transpose2d, (1, 4, 3, 3), (4, 3, 2, 2), stride=2, groups=2)
    case("transposed dil", dev, F.conv_transpose2d, (1, 2, 3, 4), (2, 2, 3, 3), dilation=2, bias=False)
    case("transposed1d", dev, F.conv_transpose1d, (2, 3, 5), (3, 4, 3), stride=3, output_padding=2)
    case("float64", dev, F.conv2d, (1, 2, 5, 5), (2, 2, 3, 3), dtype=torch.float64, padding=1)

    # unbatched input, and gradients for some operands only
    torch.manual_seed(3)
    x = torch.randn(3, 6, 6).to(dev)
    w = torch.randn(2, 3, 3, 3).to(dev).requires_grad_()
    b = torch.randn(2).to(dev)
    y = F.conv2d(x, w, b)
    print("unbatched", list(y.shape), r(y)[:6])
    y.sum().backward()
    print("  dw only", r(w.grad)[:6])
    b.requires_grad_()
    F.conv2d(x, w.detach(), b).pow(2).sum().backward()
    print("  db only", r(b.grad))
    x = torch.randn(1, 3, 5, 5).to(dev).requires_grad_()
    F.conv2d(x, w.detach()).sum().backward()
    print("  dx only", r(x.grad)[:6])
    with torch.no_grad():
        print("no_grad", F.conv2d(x, w).requires_grad)
    out = F.conv2d(x, w, b)
    print("next", [f.name() if f is not None else None for f, _ in out.grad_fn.next_functions])
    print("next nobias", [f.name() if f is not None else None
                          for f, _ in F.conv2d(x, w).grad_fn.next_functions])

    # bfloat16 (computed in float32, rounded once): small integers, whose
    # sums are exact, so the rounding is PyTorch's whatever the order
    torch.manual_seed(5)
    x = (torch.randn(2, 3, 5, 5) * 2).round().to(torch.bfloat16).to(dev).requires_grad_()
    w = (torch.randn(4, 3, 3, 3) * 1.5).round().to(torch.bfloat16).to(dev).requires_grad_()
    y = F.conv2d(x, w, padding=1)
    print("bfloat16", y.dtype, y.flatten()[:10].tolist())
    y.backward(torch.ones_like(y))
    print("  dx", x.grad.flatten()[:10].tolist(), "dw", w.grad.flatten()[:10].tolist())
