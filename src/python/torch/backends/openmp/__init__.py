"""torch.backends.openmp: Tensorscope's CPU kernels do not use OpenMP."""


def is_available():
    return False
