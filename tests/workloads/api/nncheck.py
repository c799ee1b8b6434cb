"""What the pooling, normalization, padding and activation workloads share
(not a workload itself: no .expected).

Each runs its cases twice, on the CPU and on DEV: under Tensorscope DEV is
CUDA; under Debian's python3-torch (PyTorch 1.13, CPU), which generated
the expected output of each, both passes run on the CPU."""

import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t, n=4):
    """A tensor's values, rounded (float64 for the rounding)."""
    return [round(v, n) for v in t.detach().double().flatten().tolist()]


def errors(fns):
    """Runs each of fns, printing the error it raises."""
    for f in fns:
        try:
            f()
        except Exception as e:
            print(type(e).__name__, e)


def on_devices(run):
    """run(dev) on the CPU, then on DEV."""
    for dev in ("cpu", DEV):
        print("--")
        run(dev)
