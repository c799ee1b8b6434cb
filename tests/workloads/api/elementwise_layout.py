# Elementwise results keep their inputs' memory layout as TensorIterator
# lays them out: strides, contiguity and values, against python3-torch.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(2, 3, 4, 5)
cl = x.to(memory_format=torch.channels_last)
t = torch.randn(4, 6).t()
p = torch.randn(2, 3, 4).permute(2, 0, 1)
bias = torch.randn(1, 3, 1, 1)
row = torch.randn(5)


def show(name, y):
    print("%-22s %-18s %-22s contig=%d cl=%d sum=%.4f" % (
        name, tuple(y.shape), y.stride(), y.is_contiguous(),
        y.dim() == 4 and y.is_contiguous(memory_format=torch.channels_last), float(y.double().sum())))


cases = [
    ("cl*2", lambda: cl * 2), ("cl+cl", lambda: cl + cl), ("cl+x", lambda: cl + x), ("x+cl", lambda: x + cl),
    ("cl+bias", lambda: cl + bias), ("bias+cl", lambda: bias + cl), ("cl+row", lambda: cl + row),
    ("cl.exp", lambda: cl.exp()), ("cl.relu", lambda: cl.relu()), ("cl>0", lambda: cl > 0),
    ("t*2", lambda: t * 2), ("t+t", lambda: t + t), ("t+row4", lambda: t + torch.ones(4)),
    ("t.sigmoid", lambda: t.sigmoid()), ("-t", lambda: -t), ("t**2", lambda: t ** 2), ("2**t", lambda: 2 ** t),
    ("p*3", lambda: p * 3), ("p+p", lambda: p + p), ("p.abs", lambda: p.abs()),
    ("p+p.contiguous", lambda: p + p.contiguous()), ("p.contiguous+p", lambda: p.contiguous() + p),
    ("slice*2", lambda: x[:, :, ::2] * 2), ("expand+1", lambda: x[:1].expand(3, 3, 4, 5) + 1),
    ("where", lambda: torch.where(cl > 0, cl, torch.zeros(()))), ("where-scalar", lambda: torch.where(t > 0, t, 0.)),
    ("clamp", lambda: cl.clamp(-0.5, 0.5)), ("clamp_min", lambda: t.clamp(min=0)),
    ("gelu", lambda: F.gelu(cl)), ("silu", lambda: F.silu(t)), ("leaky", lambda: F.leaky_relu(p, 0.1)),
    ("hardswish", lambda: F.hardswish(cl)), ("elu", lambda: F.elu(cl)),
    ("double", lambda: cl.double()), ("half", lambda: t.half()), ("to_int", lambda: p.to(torch.int32)),
    ("clone", lambda: cl.clone()), ("clone_t", lambda: t.clone()), ("clone_slice", lambda: x[:, :, ::2].clone()),
    ("lerp", lambda: torch.lerp(cl, cl, 0.25)), ("addcmul", lambda: torch.addcmul(t, t, t, value=0.5)),
    ("cl.double.gelu", lambda: F.gelu(cl.double())),
    ("size1", lambda: torch.randn(3, 1, 4).transpose(0, 2) * 2),
    ("empty0", lambda: torch.randn(0, 3).t() + 1),
    ("masked_fill", lambda: t.masked_fill(t > 0, 0.)), ("masked_fill_cl", lambda: cl.masked_fill(cl > 0, 1.)),
    ("sum_cl", lambda: (cl * 2).sum((2, 3))), ("softmax_t", lambda: (t * 2).softmax(-1)),
    ("sort_t", lambda: t.sort(-1)[0]), ("sort_t_idx", lambda: t.sort(0)[1].double()), ("sort_cl", lambda: cl.sort(1)[0]),
    ("sort_step", lambda: x[:, :, ::2].sort(-1)[0]), ("topk_t", lambda: t.topk(2, -1)[0]),
    ("flip_t", lambda: t.flip(0)), ("flip_cl", lambda: cl.flip(-1)), ("roll_cl", lambda: cl.roll(1, -1)),
    ("cat_cl", lambda: torch.cat([cl, cl * 2], 1)), ("cat_mixed", lambda: torch.cat([cl, x], 1)),
]
for name, fn in cases:
    show(name, fn())

for name, y in [("view(-1) of t*2", t * 2), ("view(-1) of cl+1", cl + 1)]:
    try:
        y.view(-1)
        print(name, "ok")
    except RuntimeError as e:
        print(name, "RuntimeError:", str(e).split(".")[0])

# a channels_last step: the gradient keeps the leaf's layout
w = cl.clone().requires_grad_()
(F.gelu(w) * 2 + w.sigmoid()).sum().backward()
print("grad", w.grad.stride(), "%.4f" % float(w.grad.sum()))
