# Reductions over dims: prod (aten::prod, integer inputs to int64, dtype=),
# amax/amin (one or several dims, keepdim), aminmax, argmin/argmax, and
# max/min with a dim: values, dtypes, empty inputs and error texts. The
# expected output was generated with Debian's python3-torch (PyTorch 1.13,
# CPU) running this same script: there both passes run on the CPU; under
# Tensorscope the second runs on CUDA.
import torch

from opcheck import DEV, t


for dev in ("cpu", DEV):
    x = torch.tensor([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]], device=dev)
    i = torch.tensor([[3, -1, 2], [1, 4, -2]], device=dev)
    b = torch.tensor([[True, False], [True, True]], device=dev)
    e = torch.ones(0, 3, device=dev)
    s = torch.tensor(3.0, device=dev)
    print("--- pass")
    t("prod", lambda: x.prod())
    t("prod dim", lambda: x.prod(1))
    t("prod keepdim", lambda: torch.prod(x, 0, keepdim=True))
    t("prod int", lambda: i.prod(1))
    t("prod int32", lambda: i.int().prod())
    t("prod bool", lambda: b.prod(0))
    t("prod dtype", lambda: x.prod(dtype=torch.float64))
    t("prod dtype int", lambda: x.prod(1, dtype=torch.int32))
    t("prod empty", lambda: e.prod())
    t("prod empty dim", lambda: e.prod(0))
    t("prod strided", lambda: x.t().prod(1))
    t("prod 0-dim", lambda: s.prod(0))
    t("prod tuple", lambda: x.prod((0, 1)))
    t("prod bad dim", lambda: x.prod(2))
    t("amax", lambda: x.amax())
    t("amax dim", lambda: x.amax(1))
    t("amax dims", lambda: torch.amax(x, (0, 1), keepdim=True))
    t("amax neg", lambda: i.amax(-2))
    t("amin", lambda: x.amin(0))
    t("amin bool", lambda: torch.amin(b, 1))
    t("amax 0-dim", lambda: s.amax(0))
    t("amax empty", lambda: e.amax())
    t("amax empty dim", lambda: e.amax(0))
    t("amax empty other", lambda: e.amax(1))
    t("amin dup", lambda: x.amin((0, 0)))
    t("aminmax", lambda: x.aminmax())
    t("aminmax dim", lambda: torch.aminmax(i, dim=1))
    t("aminmax keepdim", lambda: x.aminmax(dim=0, keepdim=True))
    t("aminmax empty", lambda: e.aminmax())
    t("aminmax empty other", lambda: e.aminmax(dim=1))
    t("aminmax fields", lambda: x.aminmax(dim=1).max)
    t("argmin", lambda: x.argmin())
    t("argmin dim", lambda: x.argmin(1))
    t("argmin keepdim", lambda: torch.argmin(i, 0, keepdim=True))
    t("argmin empty", lambda: e.argmin())
    t("argmin empty other", lambda: e.argmin(1))
    t("argmax", lambda: x.argmax())
    t("argmax dim", lambda: torch.argmax(x, 0))
    t("argmax keepdim", lambda: x.argmax(keepdim=True))
    t("argmax empty", lambda: e.argmax())
    t("max dim", lambda: x.max(1))
    t("min dim keepdim", lambda: i.min(0, keepdim=True))
    t("max dim fields", lambda: x.max(dim=0).indices)
