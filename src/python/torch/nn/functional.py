from torch import _unmodeled


def linear(input, weight, bias=None):
    out = input @ weight.t()
    if bias is not None:
        out = out + bias
    return out


def relu(input, inplace=False):
    return input.relu()


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
