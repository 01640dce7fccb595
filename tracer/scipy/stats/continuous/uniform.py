"""The uniform distribution on ``[loc, loc + scale]``, as ``scipy.stats.uniform``,
differentiable in ``x``, ``loc`` and ``scale``; ``y = (x - loc) / scale``."""

import numpy as np

from tracer.scipy.stats._support import like_scipy, on_support
from tracer.scipy.stats._tails import quantile


def _valid(scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return scale > 0


@like_scipy(valid=_valid)
def logpdf(x, loc=0.0, scale=1.0):
    """``-log(scale)`` for ``0 <= y <= 1``."""
    y = (x - loc) / scale
    return on_support((y >= 0) & (y <= 1), y, 0.5, lambda y: -np.log(scale))


@like_scipy(valid=_valid)
def pdf(x, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, loc, scale))


@like_scipy(valid=_valid)
def cdf(x, loc=0.0, scale=1.0):
    return np.clip((x - loc) / scale, 0, 1)


@like_scipy(valid=_valid)
def sf(x, loc=0.0, scale=1.0):
    return np.clip((loc - x) / scale + 1, 0, 1)


@like_scipy(valid=_valid)
def logcdf(x, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return on_support(y > 0, y, 1.0, lambda y: np.log(np.minimum(y, 1)))


@like_scipy(valid=_valid)
def logsf(x, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return on_support(y < 1, y, 0.0, lambda y: np.log1p(-np.maximum(y, 0)))


@like_scipy(valid=_valid)
def ppf(q, loc=0.0, scale=1.0):
    return loc + scale * quantile(q, 0.0, 1.0, lambda q: q)


@like_scipy(valid=_valid)
def isf(q, loc=0.0, scale=1.0):
    return loc + scale * quantile(q, 1.0, 0.0, lambda q: 1 - q)
