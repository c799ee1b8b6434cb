# isclose/allclose (PyTorch's composite, op for op): tolerances, NaN and
# infinities with and without equal_nan, integer and bool inputs,
# broadcasting and PyTorch's errors, on CPU and CUDA tensors; expectations
# generated with Debian's python3-torch (PyTorch 1.13) on CPU.
import torch

cuda = torch.cuda.is_available()


def t(label, f):
    try:
        r = f()
        if isinstance(r, torch.Tensor):
            r = (str(r.dtype), list(r.shape), r.cpu().reshape(-1).tolist())
        print(label, "->", r)
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


nan, inf = float("nan"), float("inf")
for dev in ["cpu", "cuda"] if cuda else ["cpu", "cpu"]:
    a = torch.tensor([1.0, 1e-9, nan, inf, -inf, 100.0], device=dev)
    b = torch.tensor([1.0 + 1e-6, 0.0, nan, inf, inf, 100.01], device=dev)
    t("isclose", lambda: torch.isclose(a, b))
    t("isclose equal_nan", lambda: torch.isclose(a, b, equal_nan=True))
    t("isclose rtol", lambda: a.isclose(b, rtol=1e-3))
    t("isclose zero tolerances", lambda: torch.isclose(a, b, rtol=0, atol=0))
    t("isclose atol", lambda: torch.isclose(a, b, atol=0.1))
    t("isclose broadcast", lambda: torch.isclose(torch.tensor([[1.0], [2.0]], device=dev),
                                                 torch.tensor([1.0, 2.0, 2.00001], device=dev)))
    t("isclose int", lambda: torch.isclose(torch.tensor([1, 2, 3], device=dev), torch.tensor([1, 3, 3], device=dev)))
    t("isclose bool", lambda: torch.isclose(torch.tensor([True, False], device=dev), torch.tensor([True, True], device=dev)))
    t("allclose", lambda: torch.allclose(a[:2], b[:2]))
    t("allclose nan", lambda: torch.allclose(a, a))
    t("allclose equal_nan", lambda: torch.allclose(a, a, equal_nan=True))
    t("allclose method", lambda: a[:1].allclose(b[:1], rtol=1e-7))
    t("allclose empty", lambda: torch.allclose(torch.empty(0, device=dev), torch.empty(0, device=dev)))
    t("dtype mismatch", lambda: torch.isclose(a, b.double()))
    t("negative rtol", lambda: torch.allclose(a, b, rtol=-1.5))
    t("negative atol", lambda: torch.isclose(a, b, atol=-0.001))
