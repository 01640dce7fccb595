"""The Pareto distribution, as ``scipy.stats.pareto``, differentiable in ``x``, ``b``,
``loc`` and ``scale``; ``y = (x - loc) / scale >= 1`` and ``sf = y**-b``."""

import math

import numpy as np

from tracer.scipy.stats._support import like_scipy, on_support
from tracer.scipy.stats._tails import log1mexp, quantile


def _valid(b, scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return (b > 0) & (scale > 0)


@like_scipy(valid=_valid)
def logpdf(x, b, loc=0.0, scale=1.0):
    """``log(b) - (b + 1) log(y) - log(scale)`` for ``y >= 1``."""
    y = (x - loc) / scale
    return on_support(y >= 1, y, 2.0,
                      lambda y: np.log(b) - (b + 1) * np.log(y) - np.log(scale))


@like_scipy(valid=_valid)
def pdf(x, b, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, b, loc, scale))


@like_scipy(valid=_valid)
def logsf(x, b, loc=0.0, scale=1.0):
    """``-b log(y)``, with ``y`` clipped to 1 below the support."""
    return -b * np.log(np.maximum((x - loc) / scale, 1))


@like_scipy(valid=_valid)
def sf(x, b, loc=0.0, scale=1.0):
    return np.exp(logsf(x, b, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, b, loc=0.0, scale=1.0):
    """``1 - y**-b`` by ``expm1``, exact near the lower edge."""
    return -np.expm1(logsf(x, b, loc, scale))


@like_scipy(valid=_valid)
def logcdf(x, b, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return on_support(y > 1, y, 2.0, lambda y: log1mexp(b * np.log(y)))


@like_scipy(valid=_valid)
def ppf(q, b, loc=0.0, scale=1.0):
    """``(1 - q)**(-1 / b)``, through ``log1p``."""
    return loc + scale * quantile(q, 1.0, math.inf, lambda q: np.exp(-np.log1p(-q) / b))


@like_scipy(valid=_valid)
def isf(q, b, loc=0.0, scale=1.0):
    return loc + scale * quantile(q, math.inf, 1.0, lambda q: np.exp(-np.log(q) / b))
