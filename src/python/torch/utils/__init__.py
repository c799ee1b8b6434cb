from . import data  # noqa: F401

from torch import _unmodeled as _unmodeled  # noqa: E402
__getattr__ = _unmodeled.module_getattr(__name__)
