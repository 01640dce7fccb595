"""``tracer.scipy.stats``: densities and distribution functions of scipy.stats, each
written with differentiable primitives, with scipy's arguments (``loc``, ``scale``, the
shape parameters) broadcasting against the quantiles, and scipy's results: computed in
float64 whatever the arguments (``dirichlet`` in theirs, as scipy's), a numpy scalar
where 0-d.  A float32 source's gradient is float32 still."""

from tracer.scipy.stats.continuous import (beta, cauchy, chi2, expon, gamma, gennorm, gumbel_l,
                                           gumbel_r, laplace, logistic, norm, pareto, t,
                                           truncnorm, uniform, vonmises, wrapcauchy)
from tracer.scipy.stats.discrete import bernoulli, betabinom, binom, geom, nbinom, poisson
from tracer.scipy.stats.multivariate import dirichlet, multinomial, multivariate_normal

__all__ = ["bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
           "gamma", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic",
           "multinomial", "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t",
           "truncnorm", "uniform", "vonmises", "wrapcauchy"]
