"""The beta-binomial distribution, as ``scipy.stats.betabinom``: its mass function,
differentiable in ``a`` and ``b`` (the count ``n`` gets no gradient)."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy, on_support


def _valid(n, a, b):
    """scipy's domain of the parameters (NaN outside it)."""
    return (n >= 0) & (n == np.floor(n)) & (a > 0) & (b > 0)


@like_scipy(valid=_valid)
def logpmf(k, n, a, b, loc=0):
    """``log(n choose k) + log B(k + a, n - k + b) - log B(a, b)`` at whole
    ``0 <= k - loc <= n``, else ``-inf``; ``n choose k = 1 / ((n + 1) B(n - k + 1,
    k + 1))``."""
    k = k - loc
    inside = (k >= 0) & (k <= n) & (k == np.floor(k))
    return on_support(inside, k, 0, lambda k: -np.log1p(n) - sc.betaln(n - k + 1, k + 1)
                      + sc.betaln(k + a, n - k + b) - sc.betaln(a, b))


@like_scipy(valid=_valid)
def pmf(k, n, a, b, loc=0):
    return np.exp(logpmf(k, n, a, b, loc))
