# The ops the op table (src/kernels/ts-op-list.def) exposes to Python: each
# method op as a Tensor method and a torch function, the number slots and
# comparisons, `~`, and the shape error of an in-place op; expectations
# generated with Debian's python3-torch (PyTorch 1.13).
import torch


def t(label, f):
    try:
        print(label, "->", repr(f()))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


a = torch.tensor([0.5, -2.0, 3.0])
b = torch.tensor([1.0, -3.0, 2.0])
for name in ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "reciprocal", "logical_not"]:
    t(name, lambda: getattr(a, name)())
    t("torch." + name, lambda: getattr(torch, name)(a))
for name in ["maximum", "minimum", "logical_and", "logical_or"]:
    t(name, lambda: getattr(a, name)(b))
    t("torch." + name, lambda: getattr(torch, name)(a, b))
t("exp int", lambda: torch.tensor([1, 2]).exp())
t("exp of a number", lambda: torch.exp(2))
t("maximum of a str", lambda: a.maximum("x"))

i = torch.tensor([6, 3, -4])
j = torch.tensor([4, 2, 3])
t("+", lambda: i + j)
t("-", lambda: i - j)
t("*", lambda: i * j)
t("/", lambda: i / j)
t("//", lambda: i // j)
t("%", lambda: i % j)
t("**", lambda: j ** 2)
t("&", lambda: i & j)
t("|", lambda: i | j)
t("^", lambda: i ^ j)
t("neg", lambda: -i)
t("abs", lambda: abs(i))
t("~int", lambda: ~i)
t("~bool", lambda: ~(i > 0))
t("< <= == != > >=", lambda: (i < j, i <= j, i == j, i != j, i > j, i >= j))


def inplace(x, y):
    x += y
    x -= y
    x *= y
    x //= y
    x %= y
    x &= y
    x |= y
    x ^= y
    return x


t("in-place", lambda: inplace(i.clone(), j))
t("in-place /", lambda: a.clone().__itruediv__(b))
t("out shape", lambda: torch.ones(3).add_(torch.ones(2, 3)))
t("copy_ shape", lambda: torch.ones(3).copy_(torch.ones(2, 3)))


def invert_leaks():
    import sys
    x = torch.tensor([1, 2])
    before = sys.getrefcount(-1)
    for _ in range(1000):
        ~x
    return sys.getrefcount(-1) - before


t("~ leaks references to -1", invert_leaks)
