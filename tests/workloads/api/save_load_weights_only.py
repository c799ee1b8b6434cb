# torch.load's weights_only, as PyTorch >= 2.6 has it: on by default, it
# builds tensors, containers and torch types and refuses any other global
# with PyTorch's message (the .expected holds PyTorch 2.6's text, which the
# 1.13 oracle does not have). What torch.save and torch.load refuse.
import io
import os
import pickle
import zipfile

import torch

import save_load_objects as objects
from checks import check


class Foo:
    """The class custom_class.pt holds (__main__.Foo, made by PyTorch)."""

    def __init__(self, x):
        self.x = x


class Evil:
    def __reduce__(self):
        return (os.system, ("echo this must not run",))


def show_error(fn):
    try:
        fn()
    except Exception as err:
        print(type(err).__name__ + ":", str(err).replace("\033", "ESC"))
    else:
        print("no error")


path = objects.data("custom_class.pt")
show_error(lambda: torch.load(path))
r = torch.load(path, weights_only=False)
print(type(r["foo"]).__name__, r["foo"].x, r["t"].tolist())
print(torch.serialization.get_unsafe_globals_in_checkpoint(path))
torch.serialization.add_safe_globals([Foo])
print(torch.serialization.get_safe_globals() == [Foo], torch.load(path)["foo"].x)
torch.serialization.clear_safe_globals()
with torch.serialization.safe_globals([Foo]):
    print("in safe_globals", torch.load(path)["foo"].x)
print(torch.serialization.get_safe_globals())
show_error(lambda: torch.load(path, pickle_module=pickle))

buf = io.BytesIO()
torch.save({"evil": Evil()}, buf)
show_error(lambda: torch.load(io.BytesIO(buf.getvalue())))
show_error(lambda: torch.load(io.BytesIO(buf.getvalue()), weights_only=True))

# refused on save: objects PyTorch could not load back
check(lambda: torch.save(torch.nn.Linear(2, 2), io.BytesIO()))
check(lambda: torch.save({"opt": torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1)}, io.BytesIO()))
check(lambda: torch.save(torch.ones(1), io.BytesIO(), _use_new_zipfile_serialization=False))
check(lambda: torch.save(torch.ones(1), 42))

# refused on load: the legacy format, TorchScript archives
check(lambda: torch.load(objects.data("legacy.pt")))
check(lambda: torch.load(objects.data("legacy.pt"), weights_only=False))
ts = io.BytesIO()
with zipfile.ZipFile(ts, "w") as z:
    z.writestr("m/constants.pkl", pickle.dumps(()))
    z.writestr("m/data.pkl", pickle.dumps(()))
    z.writestr("m/version", "3\n")
check(lambda: torch.load(io.BytesIO(ts.getvalue())))
