"""kl_divergence(p, q) for the pairs registered with register_kl (PyTorch's
formulas for them), and PyTorch's error for the others."""

import math

import torch
import torch.nn.functional as F

from .families import Bernoulli, Categorical, Exponential, Laplace, Normal, Poisson, Uniform

_KL = {}


def register_kl(type_p, type_q):
    def decorator(fn):
        _KL[type_p, type_q] = fn
        return fn
    return decorator


def _lookup(type_p, type_q):
    for p in type_p.__mro__:
        for q in type_q.__mro__:
            if (p, q) in _KL:
                return _KL[p, q]
    return None


# PyTorch's exponential families among these: a pair of two different ones
# reaches its Bregman-divergence rule, which refuses with this text
_EXPONENTIAL = (Normal, Bernoulli, Exponential, Poisson)


def kl_divergence(p, q):
    fn = _lookup(type(p), type(q))
    if fn is None and isinstance(p, _EXPONENTIAL) and isinstance(q, _EXPONENTIAL):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot"
                                  + " " * 29 + "be computed using Bregman divergences")
    if fn is None:
        raise NotImplementedError("No KL(p || q) is implemented for p type {} and q type {}"
                                  .format(p.__class__.__name__, q.__class__.__name__))
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = float("inf")
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1[q.probs == 0] = float("inf")
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2[q.probs == 1] = float("inf")
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = float("inf")
    return result


@register_kl(Normal, Uniform)
def _kl_normal_uniform(p, q):
    # a normal puts mass outside any interval: infinite, as PyTorch says
    return torch.full_like(p.loc, float("inf"))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    t1 = -rate_ratio.log()
    return t1 + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * torch.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (torch.log(p.rate) - torch.log(q.rate)) - (p.rate - q.rate)


def _register_mvn():
    from .multivariate_normal import MultivariateNormal, _batch_mahalanobis

    @register_kl(MultivariateNormal, MultivariateNormal)
    def _kl_mvn_mvn(p, q):
        if p.event_shape != q.event_shape:
            raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot "
                             "be computed")
        Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
        half_term1 = Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        n = p.event_shape[0]
        batch = tuple(torch.broadcast_shapes(tuple(Lq.shape[:-2]), tuple(Lp.shape[:-2])))
        solved = torch.linalg.solve_triangular(Lq.expand(batch + (n, n)), Lp.expand(batch + (n, n)), upper=False)
        term2 = solved.reshape(-1, n * n).pow(2).sum(-1).reshape(solved.shape[:-2])   # tr(X X^T)
        term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
        return half_term1 + 0.5 * (term2 + term3 - n)


_register_mvn()


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * torch.log(2 * ratio / math.pi)
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + ratio + (t2 - t3 + t4) / var_normal - 1
