"""The Laplace distribution, as ``scipy.stats.laplace``, differentiable in ``x``, ``loc``
and ``scale``; ``z = (x - loc) / scale``."""

import math

import numpy as np

from tracer.scipy.stats._support import like_scipy
from tracer.scipy.stats._tails import quantile

_LOG_2 = math.log(2)


def _valid(scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return scale > 0


@like_scipy(valid=_valid)
def logpdf(x, loc=0.0, scale=1.0):
    """``-log(2 scale) - |z|``."""
    return -_LOG_2 - np.abs((x - loc) / scale) - np.log(scale)


@like_scipy(valid=_valid)
def pdf(x, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, loc=0.0, scale=1.0):
    """``exp(-|z|) / 2`` below ``loc``, ``1 - exp(-|z|) / 2`` above: each branch is
    finite on both sides."""
    z = (x - loc) / scale
    half_tail = 0.5 * np.exp(-np.abs(z))
    return np.where(z < 0, half_tail, 1 - half_tail)


@like_scipy(valid=_valid)
def sf(x, loc=0.0, scale=1.0):
    return cdf(-x, -loc, scale)


@like_scipy(valid=_valid)
def logcdf(x, loc=0.0, scale=1.0):
    """``z - log 2`` below ``loc``, ``log1p(-exp(-|z|) / 2)`` above."""
    z = (x - loc) / scale
    return np.where(z < 0, z - _LOG_2, np.log1p(-0.5 * np.exp(-np.abs(z))))


@like_scipy(valid=_valid)
def logsf(x, loc=0.0, scale=1.0):
    return logcdf(-x, -loc, scale)


@like_scipy(valid=_valid)
def ppf(q, loc=0.0, scale=1.0):
    """``log(2 q)`` below 1/2, ``-log(2 (1 - q))`` above."""
    return loc + scale * quantile(q, -math.inf, math.inf, _standard_ppf)


@like_scipy(valid=_valid)
def isf(q, loc=0.0, scale=1.0):
    return loc - scale * quantile(q, -math.inf, math.inf, _standard_ppf)


def _standard_ppf(q):
    return np.where(q > 0.5, -np.log(2 - 2 * q), np.log(2 * q))
