# F.gelu (both forms) and F.silu are ops of their own, as in PyTorch: one
# node (GeluBackward0, SiluBackward0), values and gradients of its CPU
# kernels, second derivatives through create_graph, PyTorch's dtype errors.
# Values rounded to 4 decimals (-0.0 printed as 0.0); simulated CUDA
# tensors must give the CPU's values (nothing printed unless they differ).
import torch
import torch.nn.functional as F


def show(t):
    return [round(v, 4) + 0.0 for v in t.reshape(-1).tolist()]


torch.manual_seed(0)
base = torch.randn(4, 6, dtype=torch.float64) * 3
FORMS = [("silu", F.silu), ("gelu", F.gelu), ("gelu tanh", lambda t: F.gelu(t, approximate="tanh"))]
for name, f in FORMS:
    for dt in (torch.float32, torch.float64):
        results = {}
        for dev in ("cpu", "cuda") if torch.cuda.is_available() else ("cpu",):
            x = base.to(dt).to(dev).requires_grad_()
            y = f(x)
            g, = torch.autograd.grad(y.sum(), x, create_graph=True)
            gg, = torch.autograd.grad((g * g).sum(), x)
            results[dev] = (y.grad_fn.name(), show(y), show(g), show(gg))
        cpu = results["cpu"]
        print(name, dt, cpu[0])
        print("  value", cpu[1])
        print("  grad ", cpu[2])
        print("  grad of grad^2", cpu[3])
        if "cuda" in results and results["cuda"] != cpu:
            print("  differs on cuda:", results["cuda"])

x = base.float()
y = x.clone()
F.silu(y, inplace=True)
print("silu inplace", torch.allclose(y, F.silu(x)))
print(torch.nn.GELU(approximate="tanh")(x.requires_grad_()).grad_fn.name(), torch.nn.SiLU()(x).grad_fn.name())
for f in (F.silu, F.gelu):
    try:
        f(torch.tensor([1, 2]))
    except RuntimeError as e:
        print("RuntimeError:", e)
try:
    F.gelu(x, approximate="foo")
except RuntimeError as e:
    print("RuntimeError:", e)
