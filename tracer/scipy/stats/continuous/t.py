"""Student's t distribution, as ``scipy.stats.t``; its distribution functions are
differentiable in ``x``, ``loc`` and ``scale`` (not in ``df``)."""

import math

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _valid(df, scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return (df > 0) & (scale > 0)


@like_scipy(valid=_valid)
def logpdf(x, df, loc=0.0, scale=1.0):
    """``-log B(df / 2, 1 / 2) - log(df) / 2 - (df + 1) / 2 log(1 + z**2 / df) - log(scale)``:
    ``log Gamma((df + 1) / 2) - log Gamma(df / 2)`` written as ``log Gamma(1 / 2) -
    log B(df / 2, 1 / 2)``, which keeps its precision for a large ``df`` where the
    difference cancels; the normal density where ``df`` is infinite, as scipy's."""
    z = (x - loc) / scale
    finite = df < np.inf
    df = np.where(finite, df, 1.0)
    student = -sc.betaln(df / 2, 0.5) - 0.5 * np.log(df) - (df + 1) / 2 * np.log1p(z * z / df)
    return np.where(finite, student, -0.5 * z * z - _LOG_SQRT_2PI) - np.log(scale)


@like_scipy(valid=_valid)
def pdf(x, df, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, df, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, df, loc=0.0, scale=1.0):
    """Through the regularised incomplete beta function: ``1 - I(df / (df + z**2); df/2,
    1/2) / 2`` for ``z >= 0``, and its mirror below."""
    z = (x - loc) / scale
    tail = 0.5 * sc.betainc(df / 2, 0.5, df / (df + z * z))
    return np.where(z < 0, tail, 1 - tail)


@like_scipy(valid=_valid)
def sf(x, df, loc=0.0, scale=1.0):
    return cdf(-x, df, -loc, scale)


@like_scipy(valid=_valid)
def logcdf(x, df, loc=0.0, scale=1.0):
    return np.log(cdf(x, df, loc, scale))


@like_scipy(valid=_valid)
def logsf(x, df, loc=0.0, scale=1.0):
    return np.log(sf(x, df, loc, scale))
