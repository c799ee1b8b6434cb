from . import collate, pin_memory  # noqa: F401
