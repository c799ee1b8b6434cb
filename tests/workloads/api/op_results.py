"""What the op workloads share: t(label, fn) prints fn's tensor result as
its dtype, shape and values (floats with 4 decimals, which hides the last
bits where libm and PyTorch's vectorized math differ), or the error it
raises; DEVICES are the devices to run each case on, CPU then CUDA (the
CPU twice where there is no GPU: PyTorch's expectations, made on CPU,
have the same lines). Not a workload itself (no .expected)."""
import torch

DEVICES = ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu", "cpu"]


def fmt(r):
    vals = r.cpu().reshape(-1).tolist()
    if r.dtype.is_floating_point:
        vals = ["%.4f" % v for v in vals]
    return "%s %s %s" % (str(r.dtype), list(r.shape), " ".join(str(v) for v in vals))


def t(label, f):
    try:
        print(label, "->", fmt(f()))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)
