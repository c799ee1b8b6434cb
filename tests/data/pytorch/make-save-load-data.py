#!/usr/bin/python3
"""Regenerates the torch.save files in saveload/ with real PyTorch:

    /usr/bin/python3 tests/data/pytorch/make-save-load-data.py

Run by hand with Debian's PyTorch 1.13, never by the build; the tests
(tests/workloads/api/save_load_*.py) load these files without torch. Every
object is built from arange/linspace or a seeded CPU generator, so
Tensorscope can build the same ones and compare its own bytes with these.
"""

import os
import sys
from collections import OrderedDict

import torch

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "saveload")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "workloads", "api"))
import save_load_objects as objects  # noqa: E402  (the objects, shared with the tests)


class Foo:
    """A class of __main__, as a checkpoint of a script's own object holds."""

    def __init__(self, x):
        self.x = x


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, make in objects.OBJECTS.items():
        torch.save(make(), os.path.join(HERE, name + ".pt"))
    torch.save({"foo": Foo(3), "t": torch.ones(2)}, os.path.join(HERE, "custom_class.pt"))
    torch.save({"a": torch.arange(4.)}, os.path.join(HERE, "legacy.pt"), _use_new_zipfile_serialization=False)


if __name__ == "__main__":
    main()
