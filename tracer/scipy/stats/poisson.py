"""The Poisson distribution, as ``scipy.stats.poisson`` (its mass function)."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import on_support


def logpmf(k, mu, loc=0):
    """``k log(mu) - mu - log(k!)`` at whole ``k - loc >= 0``, else ``-inf``."""
    k = k - loc
    whole = (k >= 0) & (k == np.floor(k))
    return on_support(whole, k, 0, lambda k: sc.xlogy(k, mu) - mu - sc.gammaln(k + 1))


def pmf(k, mu, loc=0):
    return np.exp(logpmf(k, mu, loc))
