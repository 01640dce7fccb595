"""The exponential distribution, as ``scipy.stats.expon``, differentiable in ``x``,
``loc`` and ``scale``; ``y = (x - loc) / scale``."""

import math

import numpy as np

from tracer.scipy.stats._support import like_scipy, on_support
from tracer.scipy.stats._tails import log1mexp, quantile


def _valid(scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return scale > 0


@like_scipy(valid=_valid)
def logpdf(x, loc=0.0, scale=1.0):
    """``-y - log(scale)`` for ``y >= 0``."""
    y = (x - loc) / scale
    return on_support(y >= 0, y, 0.0, lambda y: -y - np.log(scale))


@like_scipy(valid=_valid)
def pdf(x, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, loc=0.0, scale=1.0):
    """``1 - exp(-y)`` by ``expm1``, exact for small ``y``; below the support, ``y``
    clipped to 0 gives 0."""
    return -np.expm1(-np.maximum((x - loc) / scale, 0))


@like_scipy(valid=_valid)
def logcdf(x, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return on_support(y > 0, y, 1.0, log1mexp)


@like_scipy(valid=_valid)
def sf(x, loc=0.0, scale=1.0):
    return np.exp(logsf(x, loc, scale))


@like_scipy(valid=_valid)
def logsf(x, loc=0.0, scale=1.0):
    return -np.maximum((x - loc) / scale, 0)


@like_scipy(valid=_valid)
def ppf(q, loc=0.0, scale=1.0):
    """``-log(1 - q)``, by ``log1p``."""
    return loc + scale * quantile(q, 0.0, math.inf, lambda q: -np.log1p(-q))


@like_scipy(valid=_valid)
def isf(q, loc=0.0, scale=1.0):
    return loc + scale * quantile(q, math.inf, 0.0, lambda q: -np.log(q))
