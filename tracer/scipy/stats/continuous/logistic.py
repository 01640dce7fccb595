"""The logistic distribution, as ``scipy.stats.logistic``, differentiable in ``x``,
``loc`` and ``scale``; ``z = (x - loc) / scale``."""

import math

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy
from tracer.scipy.stats._tails import quantile


def _valid(scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return scale > 0


@like_scipy(valid=_valid)
def logpdf(x, loc=0.0, scale=1.0):
    """``-|z| - 2 log(1 + exp(-|z|))``: the density is even in ``z``, and ``exp`` of
    ``-|z|`` cannot overflow."""
    magnitude = np.abs((x - loc) / scale)
    return -magnitude - 2 * np.log1p(np.exp(-magnitude)) - np.log(scale)


@like_scipy(valid=_valid)
def pdf(x, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, loc=0.0, scale=1.0):
    return sc.expit((x - loc) / scale)


@like_scipy(valid=_valid)
def sf(x, loc=0.0, scale=1.0):
    return sc.expit((loc - x) / scale)


@like_scipy(valid=_valid)
def logcdf(x, loc=0.0, scale=1.0):
    """``-log(1 + exp(-z))``, by ``logaddexp``."""
    return -np.logaddexp(0.0, (loc - x) / scale)


@like_scipy(valid=_valid)
def logsf(x, loc=0.0, scale=1.0):
    return -np.logaddexp(0.0, (x - loc) / scale)


@like_scipy(valid=_valid)
def ppf(q, loc=0.0, scale=1.0):
    return loc + scale * quantile(q, -math.inf, math.inf, sc.logit)


@like_scipy(valid=_valid)
def isf(q, loc=0.0, scale=1.0):
    return loc - scale * quantile(q, -math.inf, math.inf, sc.logit)
