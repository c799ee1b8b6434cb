"""The objects of the torch.save tests, built the same way under PyTorch
(tests/data/pytorch/make-save-load-data.py writes them with it) and under
Tensorscope (save_load_*.py compare their bytes). Not a workload itself."""

import os
from collections import OrderedDict

import torch

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "pytorch", "saveload")


def data(name):
    return os.path.join(DATA, name)


def small_model():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_((torch.arange(p.numel()) - p.numel() // 2).float().view(p.shape) * (0.25 * (i + 1)))
    return m


def model_sd():
    return small_model().state_dict()


def shared_views():
    base = torch.arange(24.).view(4, 6)
    return {"base": base, "row": base[1], "col": base[:, 2], "t": base.t(), "narrow": base[1:3, 2:5],
            "tail": base.view(-1)[10:], "other": torch.arange(3)}


DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int16, torch.int32,
          torch.int64, torch.uint8, torch.bool]


def dtypes():
    out = OrderedDict()
    for dt in DTYPES:
        out[str(dt)] = (torch.arange(-3, 3) * 7 + 1).to(dt) if dt is not torch.uint8 else torch.arange(250, 256).to(dt)
    out["scalar"] = torch.tensor(2.5)
    out["empty"] = torch.zeros(0, 3)
    out["leaf"] = torch.linspace(0, 1, 5).requires_grad_()
    out["param"] = torch.nn.Parameter(torch.ones(2, 2))
    out["frozen"] = torch.nn.Parameter(torch.zeros(3), requires_grad=False)
    return out


def misc():
    return {"list": [1, 2.5, "x", None, True], "tuple": (1, (2, 3)), "size": torch.Size([2, 3]),
            "dtype": torch.float16, "device": torch.device("cpu"), "cuda1": torch.device("cuda", 1),
            "nested": {"a": [torch.ones(2)], "b": OrderedDict(c=torch.zeros(1))}, "bytes": b"ab",
            "big": 2 ** 70, "neg": -5, "tiny": 1e-300, "set": {3, 1, 2}, "many": [torch.full((1,), float(i))
                                                                              for i in range(12)]}


def trained_optimizer():
    m = small_model()
    opt = torch.optim.Adam(m.parameters(), lr=0.1)
    x = (torch.arange(6.) - 2.5).view(2, 3) / 4
    for _ in range(2):
        opt.zero_grad()
        m(x).pow(2).sum().backward()
        opt.step()
    return m, opt


def optim_sd():
    return trained_optimizer()[1].state_dict()


# the files PyTorch writes from these (NAME.pt); the first four are compared byte for byte
OBJECTS = OrderedDict(model_sd=model_sd, shared_views=shared_views, dtypes=dtypes, misc=misc, optim_sd=optim_sd)
BYTE_EXACT = ("model_sd", "shared_views", "dtypes", "misc")
