"""The binomial distribution, as ``scipy.stats.binom``: its mass and distribution
functions, differentiable in ``p`` (the count ``n`` gets no gradient)."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy, on_support


def _valid(n, p):
    """scipy's domain of the parameters (NaN outside it)."""
    return (n >= 0) & (n == np.floor(n)) & (p >= 0) & (p <= 1)


@like_scipy(valid=_valid)
def logpmf(k, n, p, loc=0):
    """``log(n choose k) + k log(p) + (n - k) log(1 - p)`` at whole ``0 <= k - loc <= n``,
    else ``-inf``."""
    k = k - loc
    inside = (k >= 0) & (k <= n) & (k == np.floor(k))
    return on_support(inside, k, 0, lambda k: sc.gammaln(n + 1) - sc.gammaln(k + 1)
                      - sc.gammaln(n - k + 1) + sc.xlogy(k, p) + sc.xlog1py(n - k, -p))


@like_scipy(valid=_valid)
def pmf(k, n, p, loc=0):
    return np.exp(logpmf(k, n, p, loc))


@like_scipy(valid=_valid)
def cdf(k, n, p, loc=0):
    """``I(1 - p; n - k, k + 1)`` for ``k = floor(k - loc)`` from 0 to below ``n``: the
    regularised incomplete beta function, differentiated in its ``x = 1 - p``."""
    k = np.floor(k - loc)
    inside = (k >= 0) & (k < n)
    tail = sc.betainc(np.where(inside, n - k, 1), np.where(inside, k + 1, 1), 1 - p)
    return np.where(k < 0, 0.0, np.where(inside, tail, 1.0))


@like_scipy(valid=_valid)
def sf(k, n, p, loc=0):
    """``I(p; k + 1, n - k)``."""
    k = np.floor(k - loc)
    inside = (k >= 0) & (k < n)
    tail = sc.betainc(np.where(inside, k + 1, 1), np.where(inside, n - k, 1), p)
    return np.where(k < 0, 1.0, np.where(inside, tail, 0.0))
