"""torch.backends.mkldnn: Tensorscope's CPU kernels are its own (and
OpenBLAS), not oneDNN's: not available, as on a PyTorch build without it."""


def is_available():
    return False


enabled = False
