"""torch.set_printoptions (torch/_tensor_str.py upstream): the formatter is
the C one (ts-tensor-format.h); this resolves profiles and defaults."""

import math

from torch import _C


class __PrinterOptions:
    """PRINT_OPTS: a view of the formatter's current settings."""

    def _get(self, i):
        return _C._get_printoptions()[i]

    precision = property(lambda self: self._get(0))
    threshold = property(lambda self: math.inf if self._get(1) < 0 else self._get(1))
    edgeitems = property(lambda self: self._get(2))
    linewidth = property(lambda self: self._get(3))
    sci_mode = property(lambda self: None if self._get(4) < 0 else bool(self._get(4)))


PRINT_OPTS = __PrinterOptions()

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    current = [PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth]
    if profile in _PROFILES:      # PyTorch ignores a profile it does not know
        current = list(_PROFILES[profile])
    for i, v in enumerate((precision, threshold, edgeitems, linewidth)):
        if v is not None:
            current[i] = v
    threshold = current[1]
    threshold = -1 if threshold == math.inf else int(threshold)
    _C._set_printoptions(int(current[0]), threshold, int(current[2]), int(current[3]),
                         -1 if sci_mode is None else int(bool(sci_mode)))


def get_printoptions():
    return {"precision": PRINT_OPTS.precision, "threshold": PRINT_OPTS.threshold,
            "edgeitems": PRINT_OPTS.edgeitems, "linewidth": PRINT_OPTS.linewidth,
            "sci_mode": PRINT_OPTS.sci_mode}
