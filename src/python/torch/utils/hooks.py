"""torch.utils.hooks: the handle a hook registration returns."""


class RemovableHandle:
    """remove() takes the hook back out (torch/utils/hooks.py)."""

    def __init__(self, remove):
        self._remove = remove

    def remove(self):
        if self._remove is not None:
            self._remove()
            self._remove = None

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()
