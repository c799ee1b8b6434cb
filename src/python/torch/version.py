"""torch.version: what the build of PyTorch says about itself. Tensorscope
follows PyTorch 2.5's Python API on a simulated CUDA 12.4 device (the
version the H100 profile's figures come with); there is no ROCm and no
git checkout behind it."""

from torch import __version__  # noqa: F401

cuda = "12.4"
hip = None
debug = False
git_version = "tensorscope"
