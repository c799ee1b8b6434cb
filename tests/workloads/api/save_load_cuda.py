# torch.save of CUDA tensors: each storage's location ('cuda:N') is saved,
# torch.load puts it back there or where map_location says.
import io
import pickletools
import zipfile

import torch

from checks import check

a = torch.arange(12., device="cuda:0").view(3, 4)
b = torch.arange(5, device="cuda:1")
buf = io.BytesIO()
torch.save({"a": a, "at": a.t(), "b": b, "b2": b[1:]}, buf)
data = buf.getvalue()
pkl = zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
print([arg for op, arg, _ in pickletools.genops(pkl) if op.name == "BINUNICODE" and arg.startswith("cuda")])
print(zipfile.ZipFile(io.BytesIO(data)).namelist())


def load(**kwargs):
    return torch.load(io.BytesIO(data), **kwargs)


def show(name, sd):
    print(name, {k: str(v.device) for k, v in sd.items()}, sd["at"].data_ptr() == sd["a"].data_ptr(),
          sd["b2"].data_ptr() - sd["b"].data_ptr(), sd["at"].tolist()[1], sd["b2"].tolist())


show("default", load())
show("cpu", load(map_location="cpu"))
show("device", load(map_location=torch.device("cuda:2")))
show("dict", load(map_location={"cuda:1": "cuda:0"}))
show("callable", load(map_location=lambda storage, location: storage.cuda(3)))
show("callable None", load(map_location=lambda storage, location: None))
show("callable cpu", load(map_location=lambda storage, location: storage))
with torch.cuda.device(1):
    show("cuda", load(map_location="cuda"))
check(lambda: load(map_location="cuda:7"))
check(lambda: load(map_location={"cuda:0": "tpu"}))

# a CPU file loaded onto a GPU
buf = io.BytesIO()
torch.save(torch.ones(2, dtype=torch.float16), buf)
buf.seek(0)
t = torch.load(buf, map_location="cuda:1")
print(t.device, t.dtype, t.tolist())
