# layer_norm is ATen's native_layer_norm: one kernel, each row's mean and
# rstd saved, NativeLayerNormBackward0. Every bit of the forward against
# python3-torch (RowwiseMoments' Welford chunks, vector lanes and tail),
# the weight's and bias's gradients, and the errors.
import hashlib
import struct
import torch
import torch.nn as nn
import torch.nn.functional as F


def bits(t):
    t = t.detach().reshape(-1).double()
    return hashlib.sha1(struct.pack("<%dd" % t.numel(), *t.tolist())).hexdigest()[:10]


torch.manual_seed(0)
for shape, ns in [((4, 7), (7,)), ((3, 64), (64,)), ((2, 5, 300), (300,)), ((2, 3, 4, 5), (4, 5)),
                  ((8, 1000), (1000,)), ((6, 8), (8,)), ((5, 389), (389,)), ((2, 2049), (2049,)),
                  ((3, 1), (1,)), ((0, 4), (4,))]:
    x = torch.randn(*shape) * 3 + 1
    w = torch.randn(ns)
    b = torch.randn(ns)
    print(shape, bits(F.layer_norm(x, ns)), bits(F.layer_norm(x, ns, w, b, eps=1e-3)),
          bits(F.layer_norm(x.double(), ns, w.double(), b.double())))

x = torch.randn(4, 10, requires_grad=True)
ln = nn.LayerNorm(10)
with torch.no_grad():
    ln.weight.normal_()
    ln.bias.normal_()
y = ln(x)
print(y.grad_fn.name(), y.dtype, y.shape)
(y * torch.arange(10.)).sum().backward()
print(ln.weight.grad[:4].tolist(), ln.bias.grad[:4].tolist())
print([round(v, 5) for v in x.grad[0, :4].tolist()])

# a transposed input is normalized as its values, not its memory
t = torch.randn(6, 5).t()
print(bits(F.layer_norm(t, (6,))), bits(F.layer_norm(t.contiguous(), (6,))))

for args in [((torch.randn(2, 3), (4,))), ((torch.randn(2, 3), (3,), torch.ones(4)))]:
    try:
        F.layer_norm(*args)
    except RuntimeError as e:
        print("RuntimeError:", e)
