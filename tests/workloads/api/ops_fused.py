# lerp, addcmul and addcdiv bit for bit: PyTorch's CPU loops fuse their
# multiply-adds (an FMA build), which two separate ops would not; a
# checksum of the result's bits over 10,000 elements per case, float32 and
# float64, on CPU then CUDA tensors; their nodes; in-place forms. Then
# float32 var/std, which PyTorch accumulates in double and rounds once,
# and mv, which is BLAS gemv (row- or column-major as the matrix lies;
# addmv's alpha and beta are applied outside it here, inside it in
# PyTorch: its last bits can differ).
# (var_mean's mean over a dim is Welford's and can differ in its last bit:
# not printed bit for bit.)
import torch

from op_results import DEVICES


def bits(t):
    t = t.cpu()
    return t.view(torch.int32 if t.dtype == torch.float32 else torch.int64).sum().item()


for dev in DEVICES:
    torch.manual_seed(0)
    for dt in (torch.float32, torch.float64):
        a = torch.randn(10000, dtype=dt).to(dev)
        b = torch.randn(10000, dtype=dt).to(dev)
        c = torch.randn(10000, dtype=dt).to(dev)
        w = (torch.rand(10000, dtype=dt) * 3 - 1).to(dev)
        print(dt, "lerp", bits(torch.lerp(a, b, 0.3)), bits(torch.lerp(a, b, 0.7)), bits(torch.lerp(a, b, -1.5)),
              bits(torch.lerp(a, b, w)), bits(a.lerp(b[:1], w)))
        print(dt, "addcmul", bits(torch.addcmul(a, b, c)), bits(torch.addcmul(a, b, c, value=0.1)),
              bits(a.addcmul(b, c[:1], value=-3)))
        print(dt, "addcdiv", bits(torch.addcdiv(a, b, c, value=0.1)))
    i = torch.arange(6).to(dev)
    print(torch.addcmul(i, i, i, value=2).tolist(), torch.addcmul(i, i, torch.ones(6).to(dev)).dtype,
          torch.addcdiv(i, i, torch.full((6,), 4.0).to(dev), value=2).tolist())
    x = torch.randn(4).to(dev).requires_grad_()
    print(torch.lerp(x, x * 2, 0.25).grad_fn.name(), torch.lerp(x, x * 2, torch.full((4,), 0.25).to(dev)).grad_fn.name(),
          torch.addcmul(x, x, x).grad_fn.name(), torch.addcdiv(x, x, x).grad_fn.name())
    y = torch.ones(3).to(dev)
    y.lerp_(torch.full((3,), 3.0).to(dev), 0.5)
    y.addcmul_(y, y, value=0.5)
    print(y.tolist())

# the in-place forms: one kernel where no gradient is recorded, the same bits
for dev in DEVICES:
    torch.manual_seed(0)
    a = torch.randn(3, 4).to(dev)
    b = torch.randn(3, 4).to(dev)
    c = (torch.rand(4) + 0.5).to(dev)
    print(torch.equal(torch.addcmul(a, b, c, value=0.3), a.clone().addcmul_(b, c, value=0.3)),
          torch.equal(torch.addcdiv(a, b, c, value=-2), a.clone().addcdiv_(b, c, value=-2)),
          torch.equal(torch.lerp(a, b, 0.7), a.clone().lerp_(b, 0.7)),
          torch.equal(torch.lerp(a, b, c), a.clone().lerp_(b, c)))
    try:
        torch.zeros(1).to(dev).addcmul_(torch.ones(4).to(dev), torch.ones(4).to(dev))
    except RuntimeError as e:
        print(e)
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        w.addcmul_(w, w, value=2)
    print(w.tolist())

for dev in DEVICES:
    torch.manual_seed(0)
    x = (torch.randn(64, 300) * 3 + 1).to(dev)
    print(bits(x.var(1)), bits(x.std(0)), bits(x.var(1, unbiased=False)), bits(torch.std_mean(x, 0)[1]),
          bits(x.var().reshape(1)), bits(x.std().reshape(1)), bits(x[:7].var(False).reshape(1)))
    # below OpenBLAS's threading threshold (m * n < 9216): a threaded gemv
    # splits its sums by the machine's core count
    x = torch.randn(40, 100).to(dev)
    y = torch.randn(100).to(dev)
    print(bits(torch.mv(x.t(), x[:, 0])), bits(torch.mv(x.t().contiguous().t(), y)), bits(torch.mv(x[:, ::2], y[::2])),
          bits(torch.mv(x.t()[:40], x[1, :40])), bits(torch.mv(x[:, :64], x[1, :64])),
          bits(torch.mv(x.double(), y.double()).float()))
