# torch.save then torch.load: dtypes, views of one storage, strides and
# offsets, parameters, containers; the archive's layout (records, 64-byte
# alignment, top folder names).
import io
import os
import pathlib
import pickletools
import tempfile
import zipfile
from collections import OrderedDict

import torch

import save_load_objects as objects

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def roundtrip(obj, **kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **kwargs), buf.getvalue()


def layout(data):
    """(name, size, where its bytes start modulo 64) of each record"""
    out = []
    for info in zipfile.ZipFile(io.BytesIO(data)).infolist():
        header = data[info.header_offset:info.header_offset + 30]
        start = info.header_offset + 30 + int.from_bytes(header[26:28], "little") + \
            int.from_bytes(header[28:30], "little")
        out.append((info.filename, info.file_size if "pkl" not in info.filename else "-", start % 64))
    return out


# every dtype, on the device, with requires_grad and parameters
src = objects.dtypes()
for k in src:
    if k not in ("leaf", "param", "frozen"):
        src[k] = src[k].to(DEV)
back, data = roundtrip(src)
for k, v in back.items():
    print(k, type(v).__name__, v.dtype, v.device.type == DEV if k not in ("leaf", "param", "frozen") else v.device,
          v.requires_grad, v.is_leaf, v.tolist() == src[k].tolist())
print(layout(data)[:3], len(layout(data)))
print(all(a == 0 for _, _, a in layout(data)))

# views of one storage stay views of one storage
base = torch.arange(30., device=DEV).view(5, 6)
views = {"t": base.t(), "row": base[2], "block": base[1:4, 2:5], "step": base.view(-1)[::7], "base": base}
back, data = roundtrip([views, base[3]])
print([n for n, _, _ in layout(data)])
b = back[0]["base"]
for k, v in back[0].items():
    print(k, tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(), v.storage().nbytes())
b[3, 3] = -1.
print(back[0]["t"][3, 3].item(), back[0]["block"][2, 1].item(), back[1][3].item(), back[0]["row"][3].item())
print(back[1].data_ptr() - b.data_ptr() == 3 * 6 * 4)

# loading twice gives storages of their own
again = torch.load(io.BytesIO(data))
again[0]["base"][0, 0] = 7.
print(back[0]["base"][0, 0].item(), again[0]["base"][0, 0].item())

# a state dict: OrderedDict with its _metadata; parameters with grads
m = objects.small_model().to(DEV)
m(torch.ones(1, 3, device=DEV)).sum().backward()
sd, data = roundtrip(m.state_dict())
print(type(sd).__name__, list(sd), sd._metadata)
print([(k, v.requires_grad, type(v).__name__, v.grad) for k, v in sd.items()][:2])
params, data = roundtrip(list(m.parameters()))
print([(type(p).__name__, p.requires_grad, p.grad is None, tuple(p.shape)) for p in params])
print(all(torch.equal(p, q) for p, q in zip(params, m.parameters())))

# containers and the torch types
obj = {"size": torch.Size([4, 5]), "dtypes": [torch.float32, torch.bfloat16, torch.bool], "dev": torch.device(DEV),
       "dev0": torch.device("cpu"), "od": OrderedDict(b=1, a=2), "tuple": (None, "s", 2.5, 10 ** 30),
       "set": {1, 2}, "bytes": b"\x00\xff", "empty": torch.empty(0, device=DEV)}
back, data = roundtrip(obj)
for k, v in back.items():
    if isinstance(v, torch.Tensor) or k == "dev":
        v = (getattr(v, "shape", None), getattr(v, "device", v).type == DEV)
    print(k, type(v).__name__, v)
print(back["dtypes"][1] is torch.bfloat16, back["size"] == torch.Size([4, 5]))

# the pickle: protocol 2, the globals PyTorch 1.13 names
pkl = zipfile.ZipFile(io.BytesIO(roundtrip(objects.dtypes())[1])).read("archive/data.pkl")
print(pkl[:2], sorted({arg for op, arg, _ in pickletools.genops(pkl) if op.name == "GLOBAL"}))

# twelve storages: records in sorted key order ("10" before "2")
back, data = roundtrip([torch.full((2,), float(i)) for i in range(12)])
print([n for n, _, _ in layout(data)])
print([t[0].item() for t in back])

# paths: the top folder is the file's stem; a pathlib.Path, a str, a file object
with tempfile.TemporaryDirectory() as tmp:
    for name in ("model.tar.pt", "noext", "weights.pth"):
        path = os.path.join(tmp, name)
        torch.save({"w": torch.ones(2)}, pathlib.Path(path) if name == "noext" else path)
        print(name, zipfile.ZipFile(path).namelist()[0], torch.load(path)["w"].tolist())
    with open(os.path.join(tmp, "f.pt"), "wb") as f:
        torch.save(torch.arange(3), f)
    with open(os.path.join(tmp, "f.pt"), "rb") as f:
        print(zipfile.ZipFile(f).namelist()[0])
        f.seek(0)
        print(torch.load(f).tolist())
    print(torch.load(pathlib.Path(tmp) / "f.pt").tolist())
