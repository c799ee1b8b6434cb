"""What the op workloads share (not a workload itself: no .expected).

Each runs its cases twice, on the CPU and on DEV: under Tensorscope DEV is
CUDA; under Debian's python3-torch (PyTorch 1.13, CPU), which generated
the expected output of each, both passes run on the CPU. t(label, fn)
prints fn's result (dtype, shape, values) or the error it raises."""

import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def show(r, strides=False):
    if isinstance(r, torch.Tensor):
        if strides:
            return "%s %s %s %s" % (r.dtype, list(r.shape), list(r.stride()), r.cpu().tolist())
        return "%s %s %s" % (r.dtype, list(r.shape), r.cpu().tolist())
    if isinstance(r, tuple):
        name = type(r).__name__ if type(r) is not tuple else ""
        return name + "(" + "; ".join(show(x, strides) for x in r) + ")"
    if isinstance(r, list):
        return "(" + "; ".join(show(x, strides) for x in r) + ")"
    return repr(r)


def t(label, f, strides=False):
    try:
        r = f()
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)
        return
    print(label, "->", show(r, strides))
