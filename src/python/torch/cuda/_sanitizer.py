"""torch.cuda._sanitizer: the CUDA Sanitizer (CSAN) over Tensorscope's core.

The algorithm (vector clocks per stream, read/write classification of
every op's arguments) runs in C; this module is PyTorch's Python face of
it. Enabled by enable_cuda_sanitizer(), by the TORCH_CUDA_SANITIZER
environment variable (read when torch is imported, as PyTorch does) or by
`tensorscope-cli run --sanitize`.
"""

from torch import _C


class CUDASanitizerErrors(Exception):
    """The races found at one kernel launch; each is printed to stderr."""

    def __init__(self, errors):
        self.errors = errors

    def __str__(self):
        return f"detected {len(self.errors)} errors"


def enable_cuda_sanitizer():
    """Checks every later CUDA kernel for unsynchronized accesses."""
    _C._cuda_sanitizer_enable()


def is_enabled():
    return _C._cuda_sanitizer_is_enabled()
