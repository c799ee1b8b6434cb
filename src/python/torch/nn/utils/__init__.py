"""torch.nn.utils: gradient clipping, parameters as one vector, weight and
spectral normalization."""

from torch import _unmodeled

from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from ._reparam import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm  # noqa: F401

__getattr__ = _unmodeled.module_getattr(__name__)


def _bind_torch_functions():
    import torch
    from ._reparam import _weight_norm, norm_except_dim
    torch._weight_norm = _weight_norm
    torch.norm_except_dim = norm_except_dim


_bind_torch_functions()
