"""The geometric distribution on 1, 2, ..., as ``scipy.stats.geom``: its mass and
distribution functions, differentiable in ``p``; ``sf(k) = (1 - p)**floor(k)``."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy, on_support
from tracer.scipy.stats._tails import log1mexp


def _valid(p):
    """scipy's domain of the parameters (NaN outside it)."""
    return (p > 0) & (p <= 1)


@like_scipy(valid=_valid)
def logpmf(k, p, loc=0):
    """``(k - 1) log(1 - p) + log(p)`` at whole ``k - loc >= 1``, else ``-inf``."""
    k = k - loc
    return on_support((k >= 1) & (k == np.floor(k)), k, 1,
                      lambda k: sc.xlog1py(k - 1, -p) + np.log(p))


@like_scipy(valid=_valid)
def pmf(k, p, loc=0):
    return np.exp(logpmf(k, p, loc))


@like_scipy(valid=_valid)
def logsf(k, p, loc=0):
    """``floor(k) log(1 - p)``, ``k`` clipped to 0 below the support."""
    return sc.xlog1py(np.maximum(np.floor(k - loc), 0), -p)


@like_scipy(valid=_valid)
def sf(k, p, loc=0):
    return np.exp(logsf(k, p, loc))


@like_scipy(valid=_valid)
def cdf(k, p, loc=0):
    """``1 - (1 - p)**floor(k)`` by ``expm1``."""
    return -np.expm1(logsf(k, p, loc))


@like_scipy(valid=_valid)
def logcdf(k, p, loc=0):
    k = np.floor(k - loc)
    return on_support(k >= 1, k, 1, lambda k: log1mexp(-sc.xlog1py(k, -p)))
