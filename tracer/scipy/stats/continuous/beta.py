"""The beta distribution, as ``scipy.stats.beta``; its distribution functions are
differentiable in ``x``, ``loc`` and ``scale`` (not in ``a`` and ``b``)."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy, on_support


def _valid(a, b, scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return (a > 0) & (b > 0) & (scale > 0)


@like_scipy(valid=_valid)
def logpdf(x, a, b, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return on_support((y > 0) & (y < 1), y, 0.5,
                      lambda y: sc.xlogy(a - 1, y) + sc.xlog1py(b - 1, -y) - sc.betaln(a, b)
                      - np.log(scale))


@like_scipy(valid=_valid)
def pdf(x, a, b, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, a, b, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, a, b, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    inside = (y > 0) & (y < 1)
    return np.where(inside, sc.betainc(a, b, np.where(inside, y, 0.5)),
                    np.where(y <= 0, 0.0, 1.0))


@like_scipy(valid=_valid)
def sf(x, a, b, loc=0.0, scale=1.0):
    return 1 - cdf(x, a, b, loc, scale)


@like_scipy(valid=_valid)
def logcdf(x, a, b, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    inside = (y > 0) & (y < 1)
    logs = np.log(sc.betainc(a, b, np.where(inside, y, 0.5)))
    return np.where(inside, logs, np.where(y <= 0, -np.inf, 0.0))


@like_scipy(valid=_valid)
def logsf(x, a, b, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    inside = (y > 0) & (y < 1)
    logs = np.log1p(-sc.betainc(a, b, np.where(inside, y, 0.5)))
    return np.where(inside, logs, np.where(y <= 0, 0.0, -np.inf))
