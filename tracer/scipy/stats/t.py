"""Student's t distribution, as ``scipy.stats.t``; its distribution functions are
differentiable in ``x``, ``loc`` and ``scale`` (not in ``df``)."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy


@like_scipy
def logpdf(x, df, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    half = (df + 1) / 2
    return (sc.gammaln(half) - sc.gammaln(df / 2) - 0.5 * np.log(df * np.pi) - np.log(scale)
            - half * np.log1p(z * z / df))


@like_scipy
def pdf(x, df, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, df, loc, scale))


@like_scipy
def cdf(x, df, loc=0.0, scale=1.0):
    """Through the regularised incomplete beta function: ``1 - I(df / (df + z**2); df/2,
    1/2) / 2`` for ``z >= 0``, and its mirror below."""
    z = (x - loc) / scale
    tail = 0.5 * sc.betainc(df / 2, 0.5, df / (df + z * z))
    return np.where(z < 0, tail, 1 - tail)


@like_scipy
def sf(x, df, loc=0.0, scale=1.0):
    return cdf(-x, df, -loc, scale)


@like_scipy
def logcdf(x, df, loc=0.0, scale=1.0):
    return np.log(cdf(x, df, loc, scale))


@like_scipy
def logsf(x, df, loc=0.0, scale=1.0):
    return np.log(sf(x, df, loc, scale))
