"""The negative binomial distribution, as ``scipy.stats.nbinom`` (failures ``k`` before
the ``n``-th success): its mass function, differentiable in ``n`` and ``p``, and its
distribution functions, differentiable in ``p``."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy, on_support


def _valid(n, p):
    """scipy's domain of the parameters (NaN outside it)."""
    return (n > 0) & (p > 0) & (p <= 1)


@like_scipy(valid=_valid)
def logpmf(k, n, p, loc=0):
    """``log(Gamma(n + k) / (Gamma(n) k!)) + n log(p) + k log(1 - p)`` at whole
    ``k - loc >= 0``, else ``-inf``."""
    k = k - loc
    return on_support((k >= 0) & (k == np.floor(k)), k, 0,
                      lambda k: sc.gammaln(n + k) - sc.gammaln(k + 1) - sc.gammaln(n)
                      + sc.xlogy(n, p) + sc.xlog1py(k, -p))


@like_scipy(valid=_valid)
def pmf(k, n, p, loc=0):
    return np.exp(logpmf(k, n, p, loc))


@like_scipy(valid=_valid)
def cdf(k, n, p, loc=0):
    """``I(p; n, floor(k) + 1)``, the regularised incomplete beta function in its ``x``."""
    k = np.floor(k - loc)
    return np.where(k >= 0, sc.betainc(n, np.where(k >= 0, k + 1, 1), p), 0.0)


@like_scipy(valid=_valid)
def sf(k, n, p, loc=0):
    """``I(1 - p; floor(k) + 1, n)``."""
    k = np.floor(k - loc)
    return np.where(k >= 0, sc.betainc(np.where(k >= 0, k + 1, 1), n, 1 - p), 1.0)
