"""The Poisson distribution, as ``scipy.stats.poisson``: its mass and distribution
functions, differentiable in ``mu``."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy, on_support


def _valid(mu):
    """scipy's domain of the parameters (NaN outside it)."""
    return mu >= 0


@like_scipy(valid=_valid)
def logpmf(k, mu, loc=0):
    """``k log(mu) - mu - log(k!)`` at whole ``k - loc >= 0``, else ``-inf``."""
    k = k - loc
    whole = (k >= 0) & (k == np.floor(k))
    return on_support(whole, k, 0, lambda k: sc.xlogy(k, mu) - mu - sc.gammaln(k + 1))


@like_scipy(valid=_valid)
def pmf(k, mu, loc=0):
    return np.exp(logpmf(k, mu, loc))


@like_scipy(valid=_valid)
def cdf(k, mu, loc=0):
    """``Q(floor(k) + 1, mu)``, the regularised upper incomplete gamma function."""
    k = np.floor(k - loc)
    return np.where(k >= 0, sc.gammaincc(np.where(k >= 0, k, 0) + 1, mu), 0.0)


@like_scipy(valid=_valid)
def sf(k, mu, loc=0):
    k = np.floor(k - loc)
    return np.where(k >= 0, sc.gammainc(np.where(k >= 0, k, 0) + 1, mu), 1.0)


@like_scipy(valid=_valid)
def logcdf(k, mu, loc=0):
    k = np.floor(k - loc)
    return on_support(k >= 0, k, 0.0, lambda k: np.log(sc.gammaincc(k + 1, mu)))


@like_scipy(valid=_valid)
def logsf(k, mu, loc=0):
    k = np.floor(k - loc)
    return np.where(k >= 0, np.log(sc.gammainc(np.where(k >= 0, k, 0) + 1, mu)), 0.0)
