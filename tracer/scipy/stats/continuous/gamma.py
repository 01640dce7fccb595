"""The gamma distribution, as ``scipy.stats.gamma``; its distribution functions are
differentiable in ``x``, ``loc`` and ``scale`` (not in ``a``)."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy, on_support


def _valid(a, scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return (a > 0) & (scale > 0)


@like_scipy(valid=_valid)
def logpdf(x, a, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return on_support(y > 0, y, 1.0,
                      lambda y: sc.xlogy(a - 1, y) - y - sc.gammaln(a) - np.log(scale))


@like_scipy(valid=_valid)
def pdf(x, a, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, a, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, a, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return np.where(y > 0, sc.gammainc(a, np.where(y > 0, y, 1.0)), 0.0)


@like_scipy(valid=_valid)
def sf(x, a, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return np.where(y > 0, sc.gammaincc(a, np.where(y > 0, y, 1.0)), 1.0)


@like_scipy(valid=_valid)
def logcdf(x, a, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return on_support(y > 0, y, 1.0, lambda y: np.log(sc.gammainc(a, y)))


@like_scipy(valid=_valid)
def logsf(x, a, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return np.where(y > 0, np.log(sc.gammaincc(a, np.where(y > 0, y, 1.0))), 0.0)
