# torch.load reads outside input: truncated and corrupted archives, files
# that are no archive, pickles naming records that are not there or sizes
# that do not fit. Each must raise a Python exception that says what is
# wrong; none may crash the process or allocate what a number claims.
import io
import pickle
import random
import struct
import zipfile

import torch

from checks import check

good = io.BytesIO()
torch.save({"a": torch.arange(6.), "b": torch.arange(6.)[2:].view(2, 2)}, good)
good = good.getvalue()


def load(data, **kwargs):
    return torch.load(io.BytesIO(data), **kwargs)


def archive(records, prefix="archive/"):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in records.items():
            z.writestr(prefix + name, data)
    return out.getvalue()


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, _Pid) else None


class _Pid:
    def __init__(self, pid):
        self.pid = pid


def tensor_pickle(pid, size=(6,), stride=(1,), offset=0):
    """data.pkl of one tensor over the storage pid names."""
    buf = io.BytesIO()
    _Pickler(buf, 2).dump(_Reduce(torch._utils._rebuild_tensor_v2,
                                  (_Pid(pid), offset, size, stride, False, {})))
    return buf.getvalue()


class _Reduce:
    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


floats = struct.pack("<6f", *range(6))
fs = torch.FloatStorage


def one(pid=("storage", fs, "0", "cpu", 6), data=floats, version=b"3\n", **view):
    records = {"data.pkl": tensor_pickle(pid, **view), "data/0": data, "version": version}
    return archive({k: v for k, v in records.items() if v is not None})


print("good", load(good)["b"].tolist(), load(one()).tolist())
# what PyTorch 2 writes beside: the byte order, .data/version, .format_version
print("pytorch 2", load(archive({"data.pkl": tensor_pickle(("storage", fs, "0", "cpu", 6)), "byteorder": b"little",
                                 ".format_version": b"1", ".storage_alignment": b"64", "data/0": floats,
                                 ".data/version": b"3\n", ".data/serialization_id": b"123"})).tolist())
cases = {
    "empty file": b"",
    "random bytes": bytes(range(7, 107)),
    "plain pickle": pickle.dumps({"x": 1}, protocol=2),
    "truncated half": good[:len(good) // 2],
    "truncated end": good[:-5],
    "zip, no data.pkl": archive({"data/0": floats, "version": b"3\n"}),
    "zip, no folder": archive({"data.pkl": b"", "version": b"3\n"}, prefix=""),
    "zip, empty": archive({}),
    "no version": one(version=None),
    "version 99": one(version=b"99\n"),
    "version text": one(version=b"three"),
    "missing record": one(pid=("storage", fs, "7", "cpu", 6)),
    "record too small": one(data=floats[:20]),
    "numel huge": one(pid=("storage", fs, "0", "cpu", 2 ** 62)),
    "numel negative": one(pid=("storage", fs, "0", "cpu", -1)),
    "view past the end": one(size=(7,)),
    "offset past the end": one(offset=5, size=(2,)),
    "negative stride": one(stride=(-1,)),
    "huge size": one(size=(2 ** 62, 2 ** 62), stride=(1, 1)),
    "17 dims": one(size=(1,) * 17, stride=(1,) * 17),
    "2**80 elements": one(size=(2 ** 40, 2 ** 40), stride=(0, 0)),
    "empty view far out": one(size=(0,), offset=2 ** 61),
    "bad location": one(pid=("storage", fs, "0", "tpu:0", 6)),
    "bad persistent id": one(pid=("module", fs, "0", "cpu", 6)),
    "short persistent id": one(pid=("storage", fs)),
    "not a storage type": one(pid=("storage", "FloatStorage", "0", "cpu", 6)),
    "key not a string": one(pid=("storage", fs, 0, "cpu", 6)),
    "data.pkl garbage": archive({"data.pkl": b"\x80\x02garbage", "version": b"3\n"}),
    "big-endian": archive({"data.pkl": tensor_pickle(("storage", fs, "0", "cpu", 6)), "byteorder": b"big",
                           "data/0": floats, "version": b"3\n"}),
}
for name, data in cases.items():
    print(name, end=": ")
    check(lambda: load(data, weights_only=False))

# The same with weights_only: the errors of the unpickler come wrapped
print("weights_only", end=": ")
check(lambda: load(one(pid=("module", fs, "0", "cpu", 6))))
# what only weights_only refuses: BUILD on a dict, APPEND to a dict, INST
for name, pkl in (("build dict", b"\x80\x02}}b."), ("append to dict", b"\x80\x02}Na."),
                  ("inst", b"\x80\x02(icollections\nOrderedDict\n.")):
    print(name, end=": ")
    check(lambda: load(archive({"data.pkl": pkl, "version": b"3\n"})))

# Random damage: flipped bytes and cuts anywhere. Loads that survive give
# tensors; everything else raises one of the exceptions a caller expects.
rng = random.Random(16)
seen = {}
expected_errors = (RuntimeError, pickle.UnpicklingError, EOFError, ValueError, NotImplementedError, KeyError,
                   TypeError, IndexError, AttributeError, UnicodeDecodeError, OverflowError, ImportError)
for i in range(400):
    data = bytearray(good)
    if i % 4 == 0:
        data = data[:rng.randrange(len(data))]
    else:
        for _ in range(1 + i % 3):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    try:
        r = load(bytes(data), weights_only=i % 2 == 0)
        kind = "loaded" if isinstance(r, dict) else "loaded " + type(r).__name__
    except expected_errors as err:
        kind = type(err).__name__
    seen[kind] = seen.get(kind, 0) + 1
print(sorted(seen.items()))
