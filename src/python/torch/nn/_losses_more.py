"""The functionals that ATen writes as compositions of other ops, with
their modules: the embedding, ranking and margin losses, the Poisson and
Gaussian negative log-likelihoods, gumbel_softmax, bilinear,
embedding_bag, rrelu, affine_grid/grid_sample and channel_shuffle. Each
runs the ops ATen's own kernels are written in (aten/src/ATen/native/
Loss.cpp and friends, 1.13); checked against python3-torch 1.13 in
tests/workloads/api/ (nn_losses_more, embedding_bag, act_rrelu,
grid_sample, ops_batch_more)."""

import math

import torch
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules import Module, _Loss, _WeightedLoss
from torch.nn.parameter import Parameter


def _reduction(size_average, reduce, reduction, aten=True):
    """The reduction, legacy arguments first. The losses ATen computes take
    it as an enum, whose parsing has its own message; the Python ones check
    it themselves."""
    if size_average is not None or reduce is not None:
        return F._legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + (" is not a valid value for reduction" if aten else " is not valid"))
    return reduction


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return F._reduce(torch.log1p(torch.exp(-input * target)), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction, aten=False)
    if log_input:
        loss = torch.exp(input) - target * input
    else:
        loss = input - target * torch.log(input + eps)
    if full:
        stirling = target * torch.log(target) - target + 0.5 * torch.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return F._reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = torch.unsqueeze(var, -1)
        elif not (input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if torch.any(var < 0):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with torch.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return F._reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction, aten=False)
    loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    return F._reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim():
        raise RuntimeError("cosine_embedding_loss : All input tensors should have same dimension")
    dim = input1.dim() - 1
    prod_sum = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + 1e-12
    mag2 = (input2 * input2).sum(dim) + 1e-12
    cos = prod_sum / (mag1 * mag2).sqrt_()
    zeros = torch.zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min_(0)
    return F._reduce(torch.where(target == 1, pos, zeros) + torch.where(target == -1, neg, zeros), reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           "input1: {}, input2: {}, target: {} ".format(input1.size(), input2.size(), target.size()))
    return F._reduce((-target * (input1 - input2) + margin).clamp_min_(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    zeros = torch.zeros_like(input)
    margin_clamp = (margin - input).clamp_min_(0)
    loss = torch.where(target != 1, margin_clamp, zeros) + torch.where(target != -1, input, zeros)
    return F._reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    dist_pos = F.pairwise_distance(anchor, positive, p, eps)
    dist_neg = F.pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = torch.min(dist_neg, F.pairwise_distance(positive, negative, p, eps))
    return F._reduce(torch.clamp_min(margin + dist_pos - dist_neg, 0), reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(-1, 1)
    z = (margin - x.gather(1, t) + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[t]
    z = z.scatter(1, t, 0.0)
    loss = z.sum(1) / x.size(1)
    if input.dim() < 2:
        loss = loss.reshape(())
    return F._reduce(loss, reduction)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    if eps != 1e-10:
        import warnings
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    gumbels = -torch.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def bilinear(input1, input2, weight, bias=None):
    # y[..., o] = x1[..., i] W[o, i, j] x2[..., j] (+ b[o])
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError("bilinear(): input batch dimensions do not match: got {} and {}"
                           .format(list(input1.shape[:-1]), list(input2.shape[:-1])))
    out = torch.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


class SoftMarginLoss(_Loss):
    def forward(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return poisson_nll_loss(log_input, target, self.log_input, self.full, eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    def forward(self, input, target):
        return multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class _PairMarginLoss(_Loss):
    """The losses of two inputs, a target and a margin: the same module
    over cosine_embedding_loss or margin_ranking_loss."""
    _function = None

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return type(self)._function(input1, input2, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_PairMarginLoss):
    _function = staticmethod(cosine_embedding_loss)


class MarginRankingLoss(_PairMarginLoss):
    _function = staticmethod(margin_ranking_loss)


class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                   swap=self.swap, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                 reduction=self.reduction)


class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class Bilinear(Module):
    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(torch.empty(out_features, in1_features, in2_features, device=device, dtype=dtype))
        self.bias = Parameter(torch.empty(out_features, device=device, dtype=dtype)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return "in1_features={}, in2_features={}, out_features={}, bias={}".format(
            self.in1_features, self.in2_features, self.out_features, self.bias is not None)


_FUNCTIONS = ("soft_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "multilabel_soft_margin_loss",
              "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss", "triplet_margin_loss",
              "multi_margin_loss", "gumbel_softmax", "bilinear", "embedding_bag", "rrelu", "rrelu_", "affine_grid",
              "grid_sample", "multilabel_margin_loss", "triplet_margin_with_distance_loss", "channel_shuffle")


def _install():
    import torch.nn as nn
    g = globals()
    for name in _FUNCTIONS:
        setattr(F, name, g[name])
    torch.rrelu, torch.rrelu_ = rrelu, rrelu_
    torch.channel_shuffle = channel_shuffle
    for name in ("SoftMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss",
                 "CosineEmbeddingLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "TripletMarginLoss",
                 "MultiMarginLoss", "CosineSimilarity", "PairwiseDistance", "Bilinear", "EmbeddingBag", "RReLU", "MultiLabelMarginLoss",
                 "TripletMarginWithDistanceLoss", "ChannelShuffle"):
        setattr(nn, name, g[name])


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Bags of embeddings reduced by sum, mean or max: the rows gathered
    (F.embedding, with its max_norm renorm), weighted, then added, averaged
    or maxed into their bag (index_add_ / scatter_reduce). Values are
    ATen's; the graph is those ops' nodes, not EmbeddingBagBackward0."""
    if weight.dtype == torch.long and input.is_floating_point():
        import warnings
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.")
        input, weight = weight, input
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError("embedding_bag: If per_sample_weights ({}) is not None, then it must have the same "
                         "shape as the input ({})".format(per_sample_weights.shape, input.shape))
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                             "of fixed length sequences. However, found offsets of type {}".format(type(offsets)))
        offsets = torch.arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension {}".format(input.dim()))
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  "supported for mode='sum' (got mode='{}'). Please open a feature request on "
                                  "GitHub.".format(mode))
    starts = offsets.tolist()
    n = input.numel()
    n_bags = len(starts) - 1 if include_last_offset else len(starts)
    ends = starts[1:] + ([] if include_last_offset else [n])
    bag_of = [0] * n
    for b in range(n_bags):
        for i in range(starts[b], min(ends[b], n)):
            bag_of[i] = b
    bags = torch.tensor(bag_of, dtype=torch.int64, device=input.device)
    rows = F.embedding(input, weight, None, max_norm, norm_type, scale_grad_by_freq, sparse)
    keep = None
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.size(0)
        keep = input != padding_idx
        rows = rows * keep.unsqueeze(1).to(rows.dtype)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    out = torch.zeros(n_bags, weight.size(1), dtype=weight.dtype, device=weight.device)
    if mode == "max":
        # each bag's max over its kept rows (its gradient to the row that
        # held it, as ATen's); an empty bag is zeros
        kept = keep.tolist() if keep is not None else [True] * n
        parts = []
        for b in range(n_bags):
            picks = [i for i in range(starts[b], min(ends[b], n)) if kept[i]]
            if picks:
                index = torch.tensor(picks, dtype=torch.int64, device=input.device)
                parts.append(rows.index_select(0, index).max(0).values)
            else:
                parts.append(out[b])
        return torch.stack(parts) if parts else out
    out = out.index_add(0, bags, rows)
    if mode == "mean":
        ones = keep.to(weight.dtype) if keep is not None else torch.ones(n, dtype=weight.dtype, device=weight.device)
        count = torch.zeros(n_bags, dtype=weight.dtype, device=weight.device).index_add(0, bags, ones)
        out = out / count.clamp(min=1).unsqueeze(1)
    return out


class EmbeddingBag(Module):
    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2., scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None,
                 device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, "padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, "padding_idx must be within num_embeddings"
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(torch.empty(num_embeddings, embedding_dim, device=device, dtype=dtype))
            init.normal_(self.weight)
            if padding_idx is not None:
                with torch.no_grad():
                    self.weight[padding_idx].fill_(0)
        else:
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                             self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = "{}, {}".format(self.num_embeddings, self.embedding_dim)
        if self.max_norm is not None:
            s += ", max_norm={}".format(self.max_norm)
        if self.norm_type != 2:
            s += ", norm_type={}".format(self.norm_type)
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={}".format(self.scale_grad_by_freq)
        s += ", mode={}".format(self.mode)
        if self.padding_idx is not None:
            s += ", padding_idx={}".format(self.padding_idx)
        return s


def rrelu(input, lower=1. / 8, upper=1. / 3, training=False, inplace=False):
    """Randomized leaky ReLU. In training, ATen's CPU kernel draws one
    float64 uniform in [lower, upper) per non-positive element, in order,
    and scales the element by it; drawing only those keeps PyTorch's
    values for a seed. In eval mode the slope is their mean."""
    if not training:
        return F.leaky_relu(input, (lower + upper) / 2, inplace)
    negative = input <= 0
    count = int(negative.sum().item())
    noise = torch.ones_like(input)
    if count:
        draws = torch.empty(count, dtype=torch.float64, device=input.device).uniform_(lower, upper)
        noise[negative] = draws.to(input.dtype)
    return input.mul_(noise) if inplace else input * noise


def rrelu_(input, lower=1. / 8, upper=1. / 3, training=False):
    return rrelu(input, lower, upper, training, True)


class RReLU(Module):
    def __init__(self, lower=1. / 8, upper=1. / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return "lower={}, upper={}{}".format(self.lower, self.upper, ", inplace=True" if self.inplace else "")


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _align(align_corners):
    if align_corners is None:
        import warnings
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        return False
    return align_corners


def _neg_one_to_one(n, like, align_corners):
    if n <= 1:
        return torch.zeros(1 if n == 1 else 0, dtype=like.dtype, device=like.device)
    r = torch.linspace(-1, 1, n, dtype=like.dtype, device=like.device)
    return r if align_corners else r * (n - 1) / n


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of 2-d affine maps (ATen's: a base grid
    of normalized (x, y, 1) times theta's transpose)."""
    align_corners = _align(align_corners)
    if not theta.is_floating_point():
        raise ValueError("Expected theta to have floating point type, but got {}".format(theta.dtype))
    if len(size) != 4:
        raise NotImplementedError("affine_grid only supports 4D sizes, for 2D affine transformations (5D volumetric "
                                  "sizes are not modeled by Tensorscope yet). Got size {}.".format(size))
    if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
        raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size {}. Got {}.".format(
            size, theta.shape))
    n, _, h, w = size
    base = torch.empty(n, h, w, 3, dtype=theta.dtype, device=theta.device)
    base[..., 0] = _neg_one_to_one(w, theta, align_corners)
    base[..., 1] = _neg_one_to_one(h, theta, align_corners).unsqueeze(-1)
    base[..., 2] = 1
    return base.view(n, h * w, 3).bmm(theta.transpose(1, 2)).view(n, h, w, 2)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return ((coord + 1) / 2) * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, low, high):
    # reflect into [low/2, high/2] (twice the bounds, as ATen's reflect_coordinates)
    if low == high:
        return torch.zeros_like(coord)
    lo, span = low / 2, (high - low) / 2
    c = (coord - lo).abs()
    extra = torch.fmod(c, span)
    flips = torch.floor(c / span)
    return torch.where(torch.remainder(flips, 2) == 0, extra + lo, span - extra + lo)


def _source_coord(coord, size, padding_mode, align_corners):
    c = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        c = c.clamp(0, size - 1)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = c.clamp(0, size - 1)
    return c


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """2-d sampling of input at grid's normalized (x, y) points, bilinear or
    nearest, with zeros, border or reflection padding: each corner gathered
    from the flattened plane, out-of-bounds corners weighted 0. In nearest
    mode the grid gets no gradient edge (PyTorch's is zeros)."""
    align_corners = _align(align_corners)
    if mode not in ("bilinear", "nearest"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         "but got: '{}'".format(mode) if mode != "bicubic" else
                         "grid_sample(mode='bicubic') is not modeled by Tensorscope yet")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         "'reflection', but got: '{}'".format(padding_mode))
    if input.dim() != 4:
        raise NotImplementedError("grid_sample of a {}-D input is not modeled by Tensorscope yet (4-D only)"
                                  .format(input.dim()))
    n, c, h, w = input.shape
    oh, ow = grid.shape[1], grid.shape[2]
    x = _source_coord(grid[..., 0], w, padding_mode, align_corners)
    y = _source_coord(grid[..., 1], h, padding_mode, align_corners)
    flat = input.reshape(n, c, h * w)

    def tap(ix, iy):
        inside = (ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1)
        index = (iy.clamp(0, h - 1) * w + ix.clamp(0, w - 1)).long().reshape(n, 1, oh * ow).expand(n, c, oh * ow)
        values = flat.gather(2, index).reshape(n, c, oh, ow)
        return torch.where(inside.unsqueeze(1), values, torch.zeros((), dtype=input.dtype, device=input.device))

    if mode == "nearest":
        return tap(torch.round(x), torch.round(y))
    x0, y0 = torch.floor(x), torch.floor(y)
    x1, y1 = x0 + 1, y0 + 1
    nw = ((x1 - x) * (y1 - y)).unsqueeze(1)
    ne = ((x - x0) * (y1 - y)).unsqueeze(1)
    sw = ((x1 - x) * (y - y0)).unsqueeze(1)
    se = ((x - x0) * (y - y0)).unsqueeze(1)
    return tap(x0, y0) * nw + tap(x1, y0) * ne + tap(x0, y1) * sw + tap(x1, y1) * se


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over the target classes j (the leading non-negative entries of a
    row) and the other classes i of max(0, 1 - (x[j] - x[i])), over the
    number of classes."""
    reduction = _reduction(size_average, reduce, reduction)
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(x.shape)
    rows = []
    for r in range(x.size(0)):
        labels = []
        for v in t[r].tolist():
            if v < 0:
                break
            labels.append(v)
        is_target = torch.zeros(x.size(1), dtype=torch.bool, device=x.device)
        if labels:
            is_target[torch.tensor(labels, device=x.device)] = True
        total = x.new_zeros(())
        for j in labels:
            margins = (1 - (x[r, j] - x[r])).clamp(min=0)
            total = total + margins.masked_fill(is_target, 0).sum()
        rows.append(total / x.size(1))
    loss = torch.stack(rows) if rows else x.new_zeros(0)
    if input.dim() < 2:
        loss = loss.reshape(())
    return F._reduce(loss, reduction)


class MultiLabelMarginLoss(_Loss):
    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    distance = distance_function if distance_function is not None else F.pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = torch.minimum(dist_neg, distance(positive, negative))
    return F._reduce(torch.clamp_min(margin + dist_pos - dist_neg, 0), _reduction(None, None, reduction, False))


class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(None, None, reduction)
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                 margin=self.margin, swap=self.swap, reduction=self.reduction)


def channel_shuffle(input, groups):
    n, c = input.shape[:2]
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape((n, c) + rest)


class ChannelShuffle(Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self):
        return "groups={}".format(self.groups)
