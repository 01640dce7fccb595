"""The generalised normal distribution, as ``scipy.stats.gennorm``: its density,
differentiable in ``x``, ``beta``, ``loc`` and ``scale``, and its distribution functions,
differentiable in ``x``, ``loc`` and ``scale`` (not in ``beta``, which enters the
incomplete gamma function's shape); ``z = (x - loc) / scale``."""

import math

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy


def _valid(beta, scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return (beta > 0) & (scale > 0)


@like_scipy(valid=_valid)
def logpdf(x, beta, loc=0.0, scale=1.0):
    """``log(beta / (2 Gamma(1 / beta) scale)) - |z|**beta``."""
    z = (x - loc) / scale
    return (np.log(beta) - math.log(2) - sc.gammaln(1 / beta) - np.log(scale)
            - np.abs(z) ** beta)


@like_scipy(valid=_valid)
def pdf(x, beta, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, beta, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, beta, loc=0.0, scale=1.0):
    """``Q(1 / beta, |z|**beta) / 2`` below ``loc``, ``1 -`` that above: the tail
    beyond ``|z|`` is the regularised upper incomplete gamma function ``Q``."""
    z = (x - loc) / scale
    half_tail = _half_tail(z, beta)
    return np.where(z < 0, half_tail, 1 - half_tail)


@like_scipy(valid=_valid)
def sf(x, beta, loc=0.0, scale=1.0):
    return cdf(-x, beta, -loc, scale)


@like_scipy(valid=_valid)
def logcdf(x, beta, loc=0.0, scale=1.0):
    """``log1p`` of minus the tail above ``loc``, where the ``cdf`` is close to 1."""
    z = (x - loc) / scale
    half_tail = _half_tail(z, beta)
    return np.where(z < 0, np.log(half_tail), np.log1p(-half_tail))


@like_scipy(valid=_valid)
def logsf(x, beta, loc=0.0, scale=1.0):
    return logcdf(-x, beta, -loc, scale)


def _half_tail(z, beta):
    return 0.5 * sc.gammaincc(1 / beta, np.abs(z) ** beta)
