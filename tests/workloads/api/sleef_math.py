"""float32 transcendentals bit for bit: PyTorch's AVX2 CPU kernels compute
them with SLEEF (whole vectors, and for some ops the leftover elements too)
and libm (the leftover elements of the others), and so do ours. Every value
goes into a hash of its bits; a few are printed in hex to show where a
difference starts. Sizes leave tails of every kind (n % 8, n % 16)."""

import hashlib
import random
import struct

import torch
import torch.nn.functional as F
from nncheck import on_devices

rng = random.Random(1234)


def values(n, lo, hi):
    return [rng.uniform(lo, hi) for _ in range(n)]


SIZES = (8, 15, 37, 256, 1000)
# each op on a range where it is finite, as PyTorch's tests draw them
RANGES = {"log": (1e-3, 50), "log2": (1e-3, 50), "log10": (1e-3, 50), "log1p": (-0.9, 50),
          "asin": (-1, 1), "acos": (-1, 1), "lgamma": (0.05, 30), "exp": (-80, 80),
          "expm1": (-20, 20), "sinh": (-10, 10), "cosh": (-10, 10)}
INPUTS = {(op, n): values(n, *RANGES.get(op, (-8, 8)))
          for op in ["exp", "log", "tanh", "sigmoid", "sin", "cos", "tan", "expm1", "log1p", "log2",
                     "log10", "erf", "erfc", "asin", "acos", "atan", "sinh", "cosh", "lgamma", "act"]
          for n in SIZES}
SPECIAL = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-40, -1e-40, 88.7, 88.73, -87.3,
           -103.9, -104.0, 1e30, -1e30, 0.5, -0.5, 1.0, -1.0, 3e-8, 100.0]
ROWS = {shape: values(shape[0] * shape[1], -6, 6) for shape in [(16, 16), (7, 5), (37, 29), (3, 1000), (9, 20)]}


def bits(t):
    return b"".join(struct.pack("<f", v) for v in t.detach().flatten().tolist())


def show(name, t):
    flat = t.detach().flatten().tolist()
    print(name, hashlib.sha1(bits(t)).hexdigest()[:16], [v.hex() for v in flat[:2] + flat[-2:]])


def run(dev):
    for (op, n), v in INPUTS.items():
        if op == "act":
            continue
        x = torch.tensor(v, dtype=torch.float32).to(dev)
        show("%s %d" % (op, n), getattr(torch, op)(x))
    # strided: gathered runs (the vml ops) and scalar loops (sigmoid, sinh).
    # Not sigmoid or sinh of a transposed tensor: PyTorch's result keeps
    # the input's strides, and its loop is then dense, ours is not.
    x = torch.tensor(INPUTS[("tanh", 1000)], dtype=torch.float32).to(dev).reshape(40, 25)
    for op in ["exp", "tanh", "sigmoid", "sinh", "sin"]:
        show("%s strided" % op, getattr(torch, op)(x[:, ::2]))
    for op in ["exp", "tanh", "sin", "log1p"]:
        show("%s transposed" % op, getattr(torch, op)(x.t()))
    for n in SIZES:
        x = torch.tensor(INPUTS[("act", n)], dtype=torch.float32).to(dev)
        show("elu %d" % n, F.elu(x))
        show("elu0.5 %d" % n, F.elu(x, 0.5))
        show("celu0.7 %d" % n, F.celu(x, 0.7))
        show("selu %d" % n, F.selu(x))
        show("mish %d" % n, F.mish(x))
        show("logsigmoid %d" % n, F.logsigmoid(x))
        show("exp_ %d" % n, x.clone().exp_())
        show("sigmoid_ %d" % n, x.clone().sigmoid_())
    for shape, v in ROWS.items():
        x = torch.tensor(v, dtype=torch.float32).to(dev).reshape(shape)
        show("softmax -1 %s" % (shape,), x.softmax(-1))
        show("log_softmax -1 %s" % (shape,), x.log_softmax(-1))
        show("softmax 0 %s" % (shape,), x.softmax(0))
        show("log_softmax 0 %s" % (shape,), x.log_softmax(0))
        show("softmax -1 t %s" % (shape,), x.t().softmax(-1))
        show("F.softmax %s" % (shape,), F.softmax(x * 3, dim=1))
        show("F.log_softmax %s" % (shape,), F.log_softmax(x * 3, dim=1))
    x = torch.tensor(ROWS[(9, 20)], dtype=torch.float32).to(dev).reshape(3, 3, 20)
    show("softmax 3d 1", x.softmax(1))
    show("log_softmax 3d 1", x.log_softmax(1))
    # gradients: the activations' backward kernels (SLEEF's exp, and the
    # multiply-adds GCC fuses in PyTorch's AVX2 build), softmax's along
    # the last dim and another
    for n in SIZES:
        v = torch.tensor(INPUTS[("act", n)], dtype=torch.float32)
        w = torch.tensor(INPUTS[("tanh", n)], dtype=torch.float32).to(dev)
        for name, f in [("elu", F.elu), ("celu0.7", lambda x: F.celu(x, 0.7)), ("selu", F.selu),
                        ("mish", F.mish), ("logsigmoid", F.logsigmoid), ("sigmoid", torch.sigmoid)]:
            x = v.clone().to(dev).requires_grad_()
            f(x).backward(w)
            show("%s grad %d" % (name, n), x.grad)
    for shape, v in ROWS.items():
        w = torch.tensor(ROWS[shape][::-1], dtype=torch.float32).to(dev).reshape(shape)
        for name in ("softmax", "log_softmax"):
            for dim in (-1, 0):
                x = torch.tensor(v, dtype=torch.float32).to(dev).reshape(shape).requires_grad_()
                getattr(x, name)(dim).backward(w)
                show("%s grad %d %s" % (name, dim, shape), x.grad)
    # zeros, infinities, NaN (its sign and payload too), subnormals, the
    # edges of exp's range: in vector lanes and in tails
    x = torch.tensor(SPECIAL * 2, dtype=torch.float32).to(dev)
    for op in ["exp", "log", "tanh", "sigmoid", "sin", "cos", "tan", "expm1", "log1p", "log2", "log10",
               "erf", "erfc", "asin", "acos", "atan", "sinh", "cosh", "lgamma"]:
        show("%s special" % op, getattr(torch, op)(x))
    for name, f in [("elu", F.elu), ("celu", lambda x: F.celu(x, 0.7)), ("mish", F.mish),
                    ("logsigmoid", F.logsigmoid)]:
        show("%s special" % name, f(x))
    for dim in (-1, 0):
        show("softmax special %d" % dim, x.reshape(2, 20).softmax(dim))
        show("log_softmax special %d" % dim, x.reshape(2, 20).log_softmax(dim))


on_devices(run)
