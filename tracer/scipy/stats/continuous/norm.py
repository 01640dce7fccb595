"""The normal distribution, as ``scipy.stats.norm``."""

import math

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _valid(scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return scale > 0


@like_scipy(valid=_valid)
def logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -0.5 * z * z - np.log(scale) - _LOG_SQRT_2PI


@like_scipy(valid=_valid)
def pdf(x, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, loc=0.0, scale=1.0):
    return sc.ndtr((x - loc) / scale)


@like_scipy(valid=_valid)
def logcdf(x, loc=0.0, scale=1.0):
    return sc.log_ndtr((x - loc) / scale)


@like_scipy(valid=_valid)
def sf(x, loc=0.0, scale=1.0):
    """``1 - cdf``, computed without the cancellation."""
    return sc.ndtr((loc - x) / scale)


@like_scipy(valid=_valid)
def logsf(x, loc=0.0, scale=1.0):
    return sc.log_ndtr((loc - x) / scale)


@like_scipy(valid=_valid)
def ppf(q, loc=0.0, scale=1.0):
    return loc + scale * sc.ndtri(q)


@like_scipy(valid=_valid)
def isf(q, loc=0.0, scale=1.0):
    """``-ndtri(q)``: the upper tail's quantile without forming ``1 - q``."""
    return loc - scale * sc.ndtri(q)
