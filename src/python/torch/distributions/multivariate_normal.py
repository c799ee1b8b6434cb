"""torch.distributions.MultivariateNormal: parameterized by a covariance,
a precision or a lower Cholesky factor, all kept as the one factor L of
the covariance (cholesky of the covariance; of the flipped precision for
a precision). log_prob's Mahalanobis term is a triangular solve over the
batch, as PyTorch's."""

import math

import torch

from . import constraints
from .distribution import Distribution, _LocMode
from .utils import _standard_normal, lazy_property


def _batch_mv(bmat, bvec):
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """|L^-1 x|^2 for x of batch shape (..., n), L of its trailing batch
    dims (broadcast): x's batch laid out as (outer, L's batch, repeats) so
    that one triangular solve per L covers every x that uses it."""
    n = bx.size(-1)
    bx_batch = tuple(bx.shape[:-1])
    l_dims = bL.dim() - 2
    outer = len(bx_batch) - l_dims
    shape = bx_batch[:outer]
    for sl, sx in zip(bL.shape[:-2], bx_batch[outer:]):
        shape += (sx // sl, sl)
    bx = bx.reshape(shape + (n,))
    new_dims = outer + 2 * l_dims
    perm = list(range(outer)) + list(range(outer, new_dims, 2)) + list(range(outer + 1, new_dims, 2)) + [new_dims]
    bx = bx.permute(perm)
    flat_L = bL.reshape(-1, n, n)
    flat_x = bx.reshape(-1, flat_L.size(0), n)
    M = torch.linalg.solve_triangular(flat_L, flat_x.permute(1, 2, 0), upper=False).pow(2).sum(-2).t()
    M = M.reshape(tuple(bx.shape[:-1]))
    inverse = list(range(outer))
    for i in range(l_dims):
        inverse += [outer + i, outer + l_dims + i]
    return M.permute(inverse).reshape(bx_batch)


def _precision_to_scale_tril(P):
    Lf = torch.linalg.cholesky(torch.flip(P, (-2, -1)))
    L_inv = torch.transpose(torch.flip(Lf, (-2, -1)), -2, -1)
    eye = torch.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return torch.linalg.solve_triangular(L_inv, eye, upper=False)


class MultivariateNormal(_LocMode, Distribution):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        given = {"scale_tril": scale_tril, "covariance_matrix": covariance_matrix,
                 "precision_matrix": precision_matrix}
        name = next(k for k, v in given.items() if v is not None)
        matrix = given[name]
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError("{} must be at least two-dimensional, with optional leading batch dimensions"
                             .format(what))
        batch_shape = torch.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(torch.Size(batch_shape), self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def _full(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._full())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return torch.matmul(L, L.mT).expand(self._full())

    @lazy_property
    def precision_matrix(self):
        return torch.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._full())

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) +
                                                                   tuple(self._event_shape))

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
