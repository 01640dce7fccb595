"""The right-skewed Gumbel distribution, as ``scipy.stats.gumbel_r``, differentiable in
``x``, ``loc`` and ``scale``; ``z = (x - loc) / scale``, ``cdf = exp(-exp(-z))``."""

import math

import numpy as np

from tracer.scipy.stats._support import like_scipy
from tracer.scipy.stats._tails import log1mexp, quantile


def _valid(scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return scale > 0


@like_scipy(valid=_valid)
def logpdf(x, loc=0.0, scale=1.0):
    """``-z - exp(-z) - log(scale)``."""
    z = (x - loc) / scale
    return -z - np.exp(-z) - np.log(scale)


@like_scipy(valid=_valid)
def pdf(x, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, loc, scale))


@like_scipy(valid=_valid)
def logcdf(x, loc=0.0, scale=1.0):
    return -np.exp((loc - x) / scale)


@like_scipy(valid=_valid)
def cdf(x, loc=0.0, scale=1.0):
    return np.exp(logcdf(x, loc, scale))


@like_scipy(valid=_valid)
def sf(x, loc=0.0, scale=1.0):
    """``1 - exp(-exp(-z))`` by ``expm1``, exact in the upper tail."""
    return -np.expm1(logcdf(x, loc, scale))


@like_scipy(valid=_valid)
def logsf(x, loc=0.0, scale=1.0):
    return log1mexp(np.exp((loc - x) / scale))


@like_scipy(valid=_valid)
def ppf(q, loc=0.0, scale=1.0):
    """``-log(-log(q))``."""
    return loc + scale * quantile(q, -math.inf, math.inf, lambda q: -np.log(-np.log(q)))


@like_scipy(valid=_valid)
def isf(q, loc=0.0, scale=1.0):
    """``-log(-log(1 - q))``, by ``log1p``."""
    return loc + scale * quantile(q, math.inf, -math.inf, lambda q: -np.log(-np.log1p(-q)))
