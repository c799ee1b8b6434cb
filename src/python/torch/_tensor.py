"""torch._tensor: PyTorch's module of torch.Tensor. Tensorscope's Tensor is
torch.Tensor (torch/__init__.py); files saved by PyTorch name this module
for tensor subclasses and tensors with Python attributes."""

import torch
from torch import _utils

Tensor = torch.Tensor


def _rebuild_from_type_v2(func, new_type, args, state):
    ret = func(*args)
    if type(ret) is not new_type:
        ret = torch._C._make_subclass(new_type, ret, ret.requires_grad)
    if getattr(new_type, "__setstate__", None) is not None:
        ret.__setstate__(state)
    else:
        ret = _utils._set_obj_state(ret, state)
    return ret
