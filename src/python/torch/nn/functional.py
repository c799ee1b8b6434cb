import torch
from torch import _unmodeled


def linear(input, weight, bias=None):
    out = input @ weight.t()
    if bias is not None:
        out = out + bias
    return out


def relu(input, inplace=False):
    return input.relu()


def _softmax_dim(name, ndim, stacklevel):
    """PyTorch's _get_softmax_dim: the implicit dim of a call without one."""
    import warnings
    warnings.warn("Implicit dimension choice for {} has been deprecated. "
                  "Change the call to include dim=X as an argument.".format(name), stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return torch.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return torch.log_softmax(input, dim, dtype=dtype)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    # padding_idx only shapes the gradient, which Tensorscope does not
    # compute; the checks are PyTorch's.
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
    if max_norm is not None:
        raise NotImplementedError("embedding(max_norm=...) is not supported by Tensorscope yet")
    return weight._embedding(input)

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
