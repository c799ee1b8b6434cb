"""Tensorscope's torch: the PyTorch API served by the instrumented core."""

__version__ = "2.5.0+tensorscope"
