"""The normal distribution truncated to ``a <= z <= b``, as ``scipy.stats.truncnorm``
(``z = (x - loc) / scale``, so ``a`` and ``b`` are in units of ``scale`` about ``loc``),
differentiable in ``x``, ``a``, ``b``, ``loc`` and ``scale``.  Masses are differences
of normal distribution functions taken in logarithms, from the tail where both ends lie,
so a truncation far out in a tail keeps its precision."""

import math

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy, on_support
from tracer.scipy.stats._tails import log1mexp, log_diff_exp

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _log_mass(lo, hi):
    """``log(Phi(hi) - Phi(lo))`` for ``lo < hi``; when ``lo > 0`` it is taken as
    ``log(Phi(-lo) - Phi(-hi))``, so ``Phi`` is always read where it is below 1/2."""
    upper = lo > 0
    lo, hi = np.where(upper, -hi, lo), np.where(upper, -lo, hi)
    return log_diff_exp(sc.log_ndtr(hi), sc.log_ndtr(lo))


def _valid(a, b, scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return (a < b) & (scale > 0)


@like_scipy(valid=_valid)
def logpdf(x, a, b, loc=0.0, scale=1.0):
    """``-z**2 / 2 - log(sqrt(2 pi) scale) - log(Phi(b) - Phi(a))`` for ``a <= z <= b``."""
    z = (x - loc) / scale
    return on_support((z >= a) & (z <= b), z, 0.0,
                      lambda z: -0.5 * z * z - _LOG_SQRT_2PI - _log_mass(a, b) - np.log(scale))


@like_scipy(valid=_valid)
def pdf(x, a, b, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, a, b, loc, scale))


@like_scipy(valid=_valid)
def logcdf(x, a, b, loc=0.0, scale=1.0):
    """``log((Phi(z) - Phi(a)) / (Phi(b) - Phi(a)))``: ``-inf`` below ``a``, 0 above
    ``b``."""
    z = (x - loc) / scale
    inside = (z > a) & (z < b)
    below = _log_tails(np.where(inside, z, _inner(a, b)), a, b)[0]
    return np.where(z <= a, -np.inf, np.where(inside, below, 0.0))


@like_scipy(valid=_valid)
def logsf(x, a, b, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    inside = (z > a) & (z < b)
    above = _log_tails(np.where(inside, z, _inner(a, b)), a, b)[1]
    return np.where(z >= b, -np.inf, np.where(inside, above, 0.0))


@like_scipy(valid=_valid)
def cdf(x, a, b, loc=0.0, scale=1.0):
    return np.exp(logcdf(x, a, b, loc, scale))


@like_scipy(valid=_valid)
def sf(x, a, b, loc=0.0, scale=1.0):
    return np.exp(logsf(x, a, b, loc, scale))


def _log_tails(z, a, b):
    """``(log cdf, log sf)`` at ``a < z < b``: the smaller tail from its own mass, the
    larger as ``log(1 - exp(smaller))``, so that neither loses a tail far below 1."""
    norm = _log_mass(a, b)
    below, above = _log_mass(a, z) - norm, _log_mass(z, b) - norm
    smaller_below = below < above
    return (np.where(smaller_below, below, log1mexp(-above)),
            np.where(smaller_below, log1mexp(-below), above))


def _inner(a, b):
    """A point strictly between ``a`` and ``b``, either of which may be infinite."""
    return np.where(np.isinf(a), np.where(np.isinf(b), 0.0, b - 1),
                    np.where(np.isinf(b), a + 1, 0.5 * (a + b)))
