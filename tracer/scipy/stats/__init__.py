"""``tracer.scipy.stats``: densities and distribution functions of scipy.stats, each
written with differentiable primitives, with scipy's arguments (``loc``, ``scale``, the
shape parameters) broadcasting against the quantiles."""

from tracer.scipy.stats import (beta, chi2, dirichlet, gamma, multivariate_normal, norm,
                                poisson, t)

__all__ = ["beta", "chi2", "dirichlet", "gamma", "multivariate_normal", "norm", "poisson",
           "t"]
