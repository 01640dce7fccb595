"""``tracer.scipy.stats``: densities and distribution functions of scipy.stats, each
written with differentiable primitives, with scipy's arguments (``loc``, ``scale``, the
shape parameters) broadcasting against the quantiles."""

from tracer.scipy.stats import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet,
                                expon, gamma, gennorm, geom, gumbel_l, gumbel_r, laplace,
                                logistic, multinomial, multivariate_normal, nbinom, norm,
                                pareto, poisson, t, truncnorm, uniform, vonmises, wrapcauchy)

__all__ = ["bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
           "gamma", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic",
           "multinomial", "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t",
           "truncnorm", "uniform", "vonmises", "wrapcauchy"]
