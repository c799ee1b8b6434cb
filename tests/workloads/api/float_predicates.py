# isnan/isinf/isfinite over every kind of dtype (integers and bool are
# never NaN nor infinite), on CPU and CUDA tensors; expectations generated
# with Debian's python3-torch (PyTorch 1.13) on CPU.
import torch

cuda = torch.cuda.is_available()


def t(label, f):
    try:
        r = f()
        print(label, "->", str(r.dtype), list(r.shape), r.cpu().reshape(-1).tolist())
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


values = [1.5, float("nan"), float("inf"), float("-inf"), -0.0, 1e38]
for dev in ["cpu", "cuda"] if cuda else ["cpu", "cpu"]:
    for name in ["isnan", "isinf", "isfinite"]:
        for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
            t("%s %s" % (name, dt), lambda: getattr(torch, name)(torch.tensor(values, dtype=dt, device=dev)))
        t(name + " int", lambda: getattr(torch, name)(torch.tensor([0, -3], device=dev)))
        t(name + " bool", lambda: getattr(torch, name)(torch.tensor([True, False], device=dev)))
        t(name + " method", lambda: getattr(torch.tensor([[1.0, float("nan")]], device=dev).t(), name)())
        t(name + " empty", lambda: getattr(torch, name)(torch.empty(2, 0, device=dev)))
        t(name + " out=", lambda: getattr(torch, name)(torch.tensor(values, device=dev), out=torch.empty(6, dtype=torch.bool, device=dev)))
