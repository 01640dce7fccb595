"""The Cauchy distribution, as ``scipy.stats.cauchy``, differentiable in ``x``, ``loc``
and ``scale``; ``z = (x - loc) / scale``."""

import math

import numpy as np

from tracer.scipy.stats._support import like_scipy
from tracer.scipy.stats._tails import quantile


def _valid(scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return scale > 0


@like_scipy(valid=_valid)
def logpdf(x, loc=0.0, scale=1.0):
    """``-log(pi scale (1 + z**2))``."""
    z = (x - loc) / scale
    return -math.log(math.pi) - np.log(scale) - np.log1p(z * z)


@like_scipy(valid=_valid)
def pdf(x, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, loc=0.0, scale=1.0):
    """``arctan2(1, -z) / pi``: it equals ``1/2 + arctan(z) / pi`` but keeps its
    relative precision in the lower tail, where that sum cancels."""
    return np.arctan2(1.0, -(x - loc) / scale) / math.pi


@like_scipy(valid=_valid)
def sf(x, loc=0.0, scale=1.0):
    return np.arctan2(1.0, (x - loc) / scale) / math.pi


@like_scipy(valid=_valid)
def logcdf(x, loc=0.0, scale=1.0):
    """``log(cdf)`` below ``loc``, ``log1p(-sf)`` above, where ``cdf`` is close to 1."""
    z = (x - loc) / scale
    return np.where(z < 0, np.log(cdf(x, loc, scale)), np.log1p(-sf(x, loc, scale)))


@like_scipy(valid=_valid)
def logsf(x, loc=0.0, scale=1.0):
    return logcdf(-x, -loc, scale)


@like_scipy(valid=_valid)
def ppf(q, loc=0.0, scale=1.0):
    return loc + scale * quantile(q, -math.inf, math.inf, _standard_ppf)


@like_scipy(valid=_valid)
def isf(q, loc=0.0, scale=1.0):
    return loc - scale * quantile(q, -math.inf, math.inf, _standard_ppf)


def _standard_ppf(q):
    """``tan(pi (q - 1/2))``, as ``-1 / tan(pi q)`` below 1/2 and ``1 / tan(pi (1 - q))``
    above (``1 - q`` is exact there), so that each tail keeps its relative precision."""
    return np.where(q < 0.5, -1 / np.tan(math.pi * q), 1 / np.tan(math.pi * (1 - q)))
