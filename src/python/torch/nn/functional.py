import math

import torch
from torch import _unmodeled
# the autocast policy of the compositions below (docs/amp.md), as PyTorch's
# autocast_mode.cpp lists the ATen ops they stand for; its wrapper is one
# more frame between a decorated function's warnings and the user's call
from torch.amp.autocast_mode import autocast_policy


@autocast_policy(cuda="lower", cpu="lower")
def linear(input, weight, bias=None):
    # PyTorch 1.13's at::linear: a 2-D input, or a contiguous 3-D one
    # folded to rows, is one addmm with the bias (AddmmBackward0, no
    # temporary for the product); otherwise matmul, then the bias added in
    # place. A Linear layer's usual call (2-D, one floating dtype, shapes
    # that fit) passes torch.addmm's checks by construction: its launch
    # directly, without the frames of the checks.
    if bias is not None:
        ws, xs = weight._shape, input._shape
        if len(xs) == 2 and len(ws) == 2 and bias._shape == ws[:1] and xs[1] == ws[1] and \
                input.dtype == weight.dtype == bias.dtype and input.dtype.is_floating_point:
            return torch._C._addmm(bias, input, weight._t_matrix(), 1.0, 1.0)
    if bias is not None and weight.dim() == 2 and input.dim() in (2, 3) and \
            (input.dim() == 2 or input.is_contiguous()):
        if input.dim() == 2:
            return torch.addmm(bias, input, weight.t())
        b, s, k = input.shape
        return torch.addmm(bias, input.view(b * s, k), weight.t()).view(b, s, weight.shape[0])
    out = input.matmul(weight.t())
    if bias is not None and input.dim() > 1:
        out.add_(bias)
    elif bias is not None:
        # a vector's product is mm's row squeezed in place, a view, which
        # PyTorch rebases (CopySlices) for the add_: the same values and node
        out = out + bias
    return out


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
    # padding_idx and scale_grad_by_freq shape the gradient (EmbeddingBackward0)
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        raise NotImplementedError("embedding(max_norm=...) is not supported by Tensorscope yet")
    if sparse and weight.requires_grad:
        raise NotImplementedError("embedding(sparse=True): sparse gradients are not supported by Tensorscope yet")
    return weight._embedding(input, padding_idx, scale_grad_by_freq)


# -- Activations ------------------------------------------------------------
# Composed from ops that have backward formulas (relu, sigmoid, tanh, exp,
# mul, ...) so autograd flows through them; gelu's exact form needs erf and
# softplus needs log1p, whose formulas are pending (forward values are exact).

def _source(input, inplace):
    # an in-place form computes from a copy: the graph saves it, not the
    # input that copy_ then overwrites
    return input.clone() if inplace and input.requires_grad else input


def _inplace_result(input, out, inplace):
    # copy_ records CopyBackwards: the gradient flows on to out's graph
    if inplace:
        return input.copy_(out)
    return out


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def tanh(input):
    # PyTorch's deprecation (its warning names functional.py; here the caller)
    import warnings
    warnings.warn("nn.functional.tanh is deprecated. Use torch.tanh instead.", stacklevel=2)
    return input.tanh()


def sigmoid(input):
    import warnings
    warnings.warn("nn.functional.sigmoid is deprecated. Use torch.sigmoid instead.", stacklevel=2)
    return input.sigmoid()


def _floating_kernel(input, cpu_kernel, cuda_kernel):
    """PyTorch's dispatch error for a kernel with floating types only."""
    if not input.dtype.is_floating_point:
        from torch._shape import _SCALAR_NAMES
        raise RuntimeError("\"%s\" not implemented for '%s'" % (cuda_kernel if input.is_cuda else cpu_kernel,
                                                                _SCALAR_NAMES[input.dtype._name]))


# silu and gelu are ops of their own, as in PyTorch: one kernel each way
# (SiluBackward0, GeluBackward0), the formulas of its CPU kernels
# On a real GPU the CUDA module has no silu or gelu kernel yet: there they
# are composed from ops it has, rather than each call taking the host
# fallback (docs/cuda.md).
def silu(input, inplace=False):
    _floating_kernel(input, "silu_cpu", "silu_cuda")
    x = _source(input, inplace)
    if x.is_cuda and torch._C._on_hardware():
        return _inplace_result(input, x * x.sigmoid(), inplace)
    return _inplace_result(input, torch._C._activation("silu", x, 0.0, 0.0, False), inplace)


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating_kernel(input, "GeluKernelImpl", "GeluCUDAKernelImpl")
    if input.is_cuda and torch._C._on_hardware():
        if approximate == "tanh":
            inner = math.sqrt(2.0 / math.pi) * (input + 0.044715 * input * input * input)
            return 0.5 * input * (1 + inner.tanh())
        return 0.5 * input * (1 + torch.erf(input * (1 / math.sqrt(2.0))))
    return torch._C._activation("gelu", input, 1.0 if approximate == "tanh" else 0.0, 0.0, False)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    # x * (1 or slope): PyTorch's values, and its gradient at 0 (the slope)
    x = _source(input, inplace)
    pos = (x > 0).to(x.dtype)
    return _inplace_result(input, x * (pos + negative_slope * (1 - pos)), inplace)


@autocast_policy(cuda="fp32")
def softplus(input, beta=1, threshold=20):
    bx = input * beta
    above = (bx > threshold).to(input.dtype)
    capped = torch.minimum(bx, torch.full_like(bx, threshold))
    return above * input + (1 - above) * (torch.log1p(capped.exp()) / beta)


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))


_SELU_ALPHA = 1.7580993408473766   # -SELU's negative saturation, times its scale


def _dropout_impl(input, p, training, inplace, feature=False, alpha=False):
    """ATen's _dropout_impl (Dropout.cpp), which PyTorch runs for CPU tensors:
    a noise tensor drawn with bernoulli_(1 - p) (one value per channel for
    the feature forms), scaled, and multiplied in. Drawing it the same way
    gives PyTorch's CPU masks for the same seed. On CUDA PyTorch runs one
    fused native_dropout kernel (Philox) for plain dropout; here it is the
    same three launches as on the CPU."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = torch.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
        noise = torch.empty(shape, dtype=input.dtype, device=input.device)
    else:
        noise = torch.empty_like(input)
    noise.bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
        b = noise.add(-1).mul_(_SELU_ALPHA * a).add_(_SELU_ALPHA * a * p)
        noise.mul_(a)
        return (input.mul_(noise) if inplace else input * noise).add_(b)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)


def _feature_dropout_unbatched(input, p, training, inplace, batched):
    # the channel forms take an unbatched input as a batch of one
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, feature=True)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
                           "spatial dimension, a channel dimension, and an optional batch dimension "
                           "(i.e. 2D or 3D inputs).")
    return _feature_dropout_unbatched(input, p, training, inplace, inp_dim == 3)


def _warn_feature_dims(name, inp_dim, dims, spatial):
    import warnings
    if inp_dim not in dims:
        warnings.warn(f"{name}: Received a {inp_dim}-D input to {name}, which is deprecated "
                      "and will result in an error in a future release. To retain the behavior "
                      "and silence this warning, please use dropout instead. Note that "
                      f"{name} exists to provide channel-wise dropout on inputs with {spatial} "
                      "spatial dimensions, a channel dimension, and an optional batch dimension "
                      f"(i.e. {dims[0]}D or {dims[1]}D inputs).", stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    import warnings
    _check_p(p)
    inp_dim = input.dim()
    _warn_feature_dims("dropout2d", inp_dim, (3, 4), 2)
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
                      "is the channel dim. This behavior will change in a future release to interpret the "
                      "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
                      "channel-wise dropout behavior, please switch to using dropout1d instead.", stacklevel=2)
    return _dropout_impl(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    inp_dim = input.dim()
    _warn_feature_dims("dropout3d", inp_dim, (4, 5), 3)
    return _feature_dropout_unbatched(input, p, training, inplace, inp_dim == 5)


@autocast_policy(cuda="fp32")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    normalized_shape = _normalized_shape(input, normalized_shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != tuple(normalized_shape):
            raise RuntimeError("Expected %s to be of same shape as normalized_shape, but got %s of shape %s "
                               "and normalized_shape = %s" % (name, name, list(t.shape), list(normalized_shape)))
    # ATen's native_layer_norm: one launch, each row's mean and rstd saved
    out, _, _ = torch._C._native_layer_norm(input, len(normalized_shape), weight, bias, float(eps))
    return out


# -- Losses -----------------------------------------------------------------

def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError("{} is not a valid value for reduction".format(reduction))


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _check_same_size(name, input, target):
    if tuple(target.shape) != tuple(input.shape):
        import warnings
        warnings.warn("Using a target size ({}) that is different to the input size ({}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.".format(target.size(), input.size()),
                      stacklevel=4)


@autocast_policy(cuda="fp32", cpu="fp32")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_same_size("mse_loss", input, target)
    d = input - target
    return _reduce(d * d, reduction)


@autocast_policy(cuda="fp32", cpu="fp32")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_same_size("l1_loss", input, target)
    return _reduce((input - target).abs(), reduction)


@autocast_policy(cuda="fp32", cpu="fp32")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_same_size("smooth_l1_loss", input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    # |d| < beta: 0.5 d^2 / beta, else |d| - 0.5 beta, as one expression
    m = torch.minimum(d, torch.full_like(d, beta))
    return _reduce(0.5 * m * m / beta + (d - m), reduction)


@autocast_policy(cuda="fp32", cpu="fp32")
def huber_loss(input, target, reduction="mean", delta=1.0):
    d = (input - target).abs()
    m = torch.minimum(d, torch.full_like(d, delta))
    return _reduce(0.5 * m * m + delta * (d - m), reduction)


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction):
    # at::Reduction, as the nll_loss ops take it
    if reduction not in _REDUCTIONS:
        raise ValueError("{} is not a valid value for reduction".format(reduction))
    return _REDUCTIONS[reduction]


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    # ATen's nll_loss_nd: 1-d and 2-d inputs run nll_loss_forward, 4-d ones
    # nll_loss2d_forward (one op each, as PyTorch's, with their nodes), the
    # other ranks nll_loss2d over an (N, C, 1, -1) view
    red = _reduction_enum(reduction)
    if input.dim() < 1:
        raise ValueError("Expected 1 or more dimensions (got {})".format(input.dim()))
    if input.dim() != 1 and (target.dim() == 0 or input.size(0) != target.size(0)):
        raise ValueError("Expected input batch_size ({}) to match target batch_size ({}).".format(
            input.size(0), target.size(0) if target.dim() else 1))
    if input.dim() in (1, 2, 4):
        return torch._C._nll_loss(input, target, weight, red, ignore_index)[0]
    n, c = input.size(0), input.size(1)
    out_size = [n] + list(input.shape[2:])
    if list(target.shape[1:]) != list(input.shape[2:]):
        raise RuntimeError("Expected target size {}, got {}".format(out_size, list(target.shape)))
    input = input.contiguous()
    target = target.contiguous()
    input = input.view(n, c, 1, -1) if input.numel() > 0 else input.view(n, c, 0, 0)
    target = target.view(n, 1, -1) if target.numel() > 0 else target.view(n, 0, 0)
    out = torch._C._nll_loss(input, target, weight, red, ignore_index)[0]
    return out if red != 0 else out.view(out_size)


@autocast_policy(cuda="fp32", cpu="fp32")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nll_loss_nd(input, target, weight, reduction, ignore_index)


@autocast_policy(cuda="fp32", cpu="fp32")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if label_smoothing < 0.0 or label_smoothing > 1.0:
        raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: {}".format(label_smoothing))
    class_dim = 0 if input.dim() == 1 else 1
    C = input.size(class_dim)
    # one log_softmax op, which saves only its result, as PyTorch's
    logp = input.log_softmax(class_dim)
    if target.dtype.is_floating_point:
        # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError("Expected target size {}, got {}".format(list(input.shape), list(target.shape)))
        lp = logp if input.dim() <= 2 else logp.movedim(1, -1)
        t = target if input.dim() <= 2 else target.movedim(1, -1)
        if label_smoothing > 0:
            t = t * (1 - label_smoothing) + label_smoothing / C
        w = lp * t
        if weight is not None:
            w = w * weight
        loss = -w.sum(-1)
        if reduction == "mean":
            n = input.numel() // C if input.dim() > 1 else 1
            return loss.sum() / n
        return _reduce(loss, reduction)
    nll = _nll_loss_nd(logp, target, weight, reduction, ignore_index)
    if label_smoothing <= 0:
        return nll
    lp = logp if input.dim() <= 2 else logp.movedim(1, -1)
    valid = (target != ignore_index).to(input.dtype)
    if weight is not None:
        smooth = -(lp * weight).sum(-1) * valid
    else:
        smooth = -lp.sum(-1) * valid
    if reduction == "none":
        smooth_red = smooth
    elif reduction == "sum":
        smooth_red = smooth.sum()
    elif weight is not None:
        safe = target * (target != ignore_index).to(target.dtype)
        wsum = (one_hot(safe, C).to(input.dtype) * weight).sum(-1) * valid
        smooth_red = smooth.sum() / wsum.sum()
    else:
        smooth_red = smooth.sum() / valid.sum()
    return (1 - label_smoothing) * nll + smooth_red * (label_smoothing / C)


@autocast_policy(cuda="banned", cpu="fp32")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("Using a target size ({}) that is different to the input size ({}) is deprecated. "
                         "Please ensure they have the same size.".format(target.size(), input.size()))
    # PyTorch clamps each log at -100
    floor = torch.full_like(input, -100.0)
    loss = -(target * torch.maximum(input.log(), floor) + (1 - target) * torch.maximum((1 - input).log(), floor))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@autocast_policy(cuda="fp32", cpu="fp32")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("Target size ({}) must be the same as input size ({})".format(target.size(), input.size()))
    # ATen's form: (1 - y) x + log_weight (log(exp(-m) + exp(-x - m)) + m), m = max(-x, 0)
    m = (-input).relu()
    soft = ((-m).exp() + (-input - m).exp()).log() + m
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * soft
    else:
        loss = (1 - target) * input + soft
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@autocast_policy(cuda="fp32", cpu="fp32")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        import warnings
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=3)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # xlogy(t, t) - t * x: 0 where t == 0
        zero = (target == 0).to(target.dtype)
        loss = target * (target + zero).log() - target * input
    if reduction == "batchmean":
        if input.dim() == 0:
            return loss.sum()
        return loss.sum() / input.size(0)
    return _reduce(loss, reduction)


from ._attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: E402,F401
from torch.nn._conv import conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d, fold, unfold  # noqa: E402,F401,E501

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)


from ._pooling import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool1d,  # noqa: E402,F401
                       adaptive_max_pool1d as adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
                       adaptive_max_pool2d_with_indices, avg_pool1d, avg_pool2d, avg_pool3d,
                       adaptive_avg_pool3d, adaptive_max_pool3d,
                       fractional_max_pool2d, lp_pool1d, lp_pool2d, max_pool1d, max_pool1d_with_indices,
                       max_pool2d, max_pool2d_with_indices, max_pool3d, max_unpool1d, max_unpool2d)
from ._normalization import (batch_norm, group_norm, instance_norm, local_response_norm,  # noqa: E402,F401
                             rms_norm, _normalized_shape)
from ._padding import (interpolate, pad, pixel_shuffle, pixel_unshuffle, upsample,  # noqa: E402,F401
                       upsample_bilinear, upsample_nearest)
from ._activation_more import (celu, elu, glu, hardshrink, hardsigmoid, hardswish, hardtanh,  # noqa: E402,F401
                               logsigmoid, mish, prelu, relu6, selu, softmin, softshrink, softsign, tanhshrink,
                               threshold)
