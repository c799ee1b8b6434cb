"""torch.distributions: Normal, Uniform, Bernoulli, Categorical,
OneHotCategorical, Exponential, Laplace, Poisson (no sampling yet),
MultivariateNormal,
Independent and kl_divergence, written from PyTorch's
definitions (tests/workloads/api/distributions.py checks them against
1.13). The other distributions fail by name as not modeled."""

from torch import _unmodeled

from . import constraints  # noqa: F401
from .distribution import Distribution, Independent  # noqa: F401
from .families import (Bernoulli, Categorical, Exponential, Laplace, Normal, OneHotCategorical,  # noqa: F401
                       Poisson, Uniform)
from .kl import kl_divergence, register_kl  # noqa: F401
from .multivariate_normal import MultivariateNormal  # noqa: F401

__getattr__ = _unmodeled.module_getattr(__name__)
