# torch.load of files PyTorch 1.13 wrote (tests/data/pytorch/saveload/, made
# by make-save-load-data.py), and torch.save of the same objects compared
# with them byte for byte.
import io
import os
import tempfile
import zipfile

import torch

import save_load_objects as objects

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def show(name, obj):
    if isinstance(obj, torch.Tensor):
        print(name, type(obj).__name__, obj.dtype, tuple(obj.shape), obj.stride(), obj.storage_offset(),
              obj.requires_grad, obj.device, obj.tolist())
    elif isinstance(obj, dict):
        print(name, type(obj).__name__, list(obj), getattr(obj, "_metadata", None))
        for k, v in obj.items():
            show(name + "." + str(k), v)
    elif isinstance(obj, (list, tuple)) and any(isinstance(v, (torch.Tensor, dict, list, tuple)) for v in obj):
        print(name, type(obj).__name__, len(obj))
        for i, v in enumerate(obj):
            show(name + "[%d]" % i, v)
    else:
        print(name, type(obj).__name__, repr(obj))


for name in objects.OBJECTS:
    show(name, torch.load(objects.data(name + ".pt"), weights_only=False))

# weights_only (PyTorch 1.13 has it too) for what state dicts hold
show("wo.model_sd", torch.load(objects.data("model_sd.pt"), weights_only=True))
show("wo.shared", torch.load(objects.data("shared_views.pt"), weights_only=True))

# views of one storage load as views of one storage
v = torch.load(objects.data("shared_views.pt"), weights_only=False)
v["base"][2, 2] = 100.
print("shared", v["row"][2].item(), v["col"][2].item(), v["t"][2, 2].item(), v["narrow"][1, 0].item(),
      v["tail"][4].item(), v["base"].data_ptr() == v["t"].data_ptr())

# map_location: a string, a device, a dict, a callable
for loc in ("cpu", torch.device("cpu"), {"cpu": "cpu"}, lambda storage, location: storage):
    sd = torch.load(objects.data("model_sd.pt"), map_location=loc, weights_only=True)
    print("map_location", type(loc).__name__, sd["0.weight"].device, sd["2.bias"].tolist())

# a state dict goes back into a model
m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)).to(DEV)
print(m.load_state_dict(torch.load(objects.data("model_sd.pt"), map_location=DEV)))
print("model out", [round(x, 4) for x in m(torch.arange(-3., 3., device=DEV).view(2, 3)).view(-1).tolist()])

# torch.save of the same objects: the bytes PyTorch wrote
with tempfile.TemporaryDirectory() as tmp:
    for name in objects.BYTE_EXACT:
        path = os.path.join(tmp, name + ".pt")
        torch.save(objects.OBJECTS[name](), path)
        with open(path, "rb") as f, open(objects.data(name + ".pt"), "rb") as g:
            ours, theirs = f.read(), g.read()
        print("bytes", name, len(ours), ours == theirs)

# a file object: the top folder is "archive"
buf = io.BytesIO()
torch.save(objects.shared_views(), buf)
z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
print([(i.filename, i.header_offset, i.file_size) for i in z.infolist()])
