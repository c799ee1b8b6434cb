from .data_parallel import DataParallel  # noqa: F401
