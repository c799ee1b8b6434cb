# The unary math family of the op table (ts-op-list.def's block "elementwise
# families, softmax"): values, result dtypes for integer and bool inputs,
# dtype errors, on CPU tensors and on CUDA ones (the host fallback);
# expectations generated with Debian's python3-torch (PyTorch 1.13) on CPU.
import torch

from op_results import DEVICES, t

FLOAT = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
         "exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "erf", "erfc", "erfinv"]
ROUNDING = ["sign", "floor", "ceil", "round", "trunc", "frac"]

x = torch.tensor([[-0.9, -0.5, 0.0], [0.3, 0.71, 1.0], [1.5, 2.5, -3.7]])
special = torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0, 0.5, -1.5])
ints = torch.tensor([3, 0, -2])
bools = torch.tensor([True, False])

for dev in DEVICES:
    xd = x.to(dev)
    for name in FLOAT + ROUNDING:
        t(name, lambda: getattr(torch, name)(xd))
        t(name + " method", lambda: getattr(xd, name)())
        t(name + " float64", lambda: getattr(torch, name)(xd.double()))
        t(name + " special", lambda: getattr(torch, name)(special.to(dev)))
        t(name + " int", lambda: getattr(torch, name)(ints.to(dev)))
        t(name + " bool", lambda: getattr(torch, name)(bools.to(dev)))
        t(name + " empty", lambda: getattr(torch, name)(torch.empty(0, 3, device=dev)))
    # a strided input and a 0-dim one
    t("exp2 transposed", lambda: torch.exp2(xd.t()))
    t("sign 0-dim", lambda: torch.sign(torch.tensor(-2.5, device=dev)))
    t("round halves", lambda: torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5], device=dev)))
t("erf of a number", lambda: torch.erf(1.0))

# in-place forms and out=
for dev in DEVICES:
    y = torch.tensor([0.25, -1.5, 2.0], device=dev)
    t("floor_", lambda: y.clone().floor_())
    t("exp_ of a view", lambda: (lambda z: (z[1:].exp_(), z)[1])(y.clone()))
    t("torch.erf_", lambda: torch.erf_(y.clone()))
    t("sqrt_ returns self", lambda: torch.tensor([float(y.clone().sqrt_() is not None)]))
    t("log2_ int", lambda: torch.tensor([4, 8], device=dev).log2_())
    t("sign_ int", lambda: torch.tensor([4, -8, 0], device=dev).sign_())
    t("frac_ int", lambda: torch.tensor([4], device=dev).frac_())
    t("out=", lambda: torch.tanh(y, out=torch.empty(3, device=dev)))
    t("out= float64", lambda: torch.exp2(y, out=torch.empty(3, dtype=torch.float64, device=dev)))
    t("out= int", lambda: torch.exp(y, out=torch.empty(3, dtype=torch.int64, device=dev)))
    t("out= of int input", lambda: torch.rsqrt(torch.tensor([4, 16], device=dev), out=torch.empty(2, device=dev)))
    t("out= not a tensor", lambda: torch.sin(y, out=3))
    o = torch.empty(3, device=dev)
    t("out= is returned", lambda: torch.tensor([float(torch.cos(y, out=o) is o)]))

# the activation modules over these ops
t("nn.Tanh", lambda: torch.nn.Tanh()(torch.tensor([-1.0, 0.5])))
t("nn.Sigmoid", lambda: torch.nn.Sigmoid()(torch.tensor([-1.0, 0.5])))
