"""The Bernoulli distribution, as ``scipy.stats.bernoulli``: its mass and distribution
functions, differentiable in ``p``."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy, on_support


def _valid(p):
    """scipy's domain of the parameters (NaN outside it)."""
    return (p >= 0) & (p <= 1)


@like_scipy(valid=_valid)
def logpmf(k, p, loc=0):
    """``k log(p) + (1 - k) log(1 - p)`` at ``k - loc`` in {0, 1}, else ``-inf``
    (``xlogy`` makes ``p`` of 0 or 1 exact)."""
    k = k - loc
    return on_support((k == 0) | (k == 1), k, 0,
                      lambda k: sc.xlogy(k, p) + sc.xlog1py(1 - k, -p))


@like_scipy(valid=_valid)
def pmf(k, p, loc=0):
    return np.exp(logpmf(k, p, loc))


@like_scipy(valid=_valid)
def cdf(k, p, loc=0):
    """0 below 0, ``1 - p`` from 0 to 1, 1 from 1 on."""
    k = k - loc
    return np.where(k < 0, 0.0, np.where(k < 1, 1 - p, 1.0))


@like_scipy(valid=_valid)
def sf(k, p, loc=0):
    k = k - loc
    return np.where(k < 0, 1.0, np.where(k < 1, p, 0.0))
