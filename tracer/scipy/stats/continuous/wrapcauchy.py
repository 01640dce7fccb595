"""The wrapped Cauchy distribution on ``0 <= y <= 2 pi``, as ``scipy.stats.wrapcauchy``:
its density, differentiable in ``x``, ``c``, ``loc`` and ``scale``."""

import math

import numpy as np

from tracer.scipy.stats._support import like_scipy, on_support


def _valid(c, scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return (c > 0) & (c < 1) & (scale > 0)


@like_scipy(valid=_valid)
def logpdf(x, c, loc=0.0, scale=1.0):
    """``log((1 - c**2) / (2 pi (1 + c**2 - 2 c cos(y))) / scale)``, the denominator
    written ``(1 - c)**2 + 4 c sin(y / 2)**2`` so that it keeps its precision for ``c``
    near 1 and ``y`` near 0."""
    y = (x - loc) / scale
    return on_support((y >= 0) & (y <= 2 * math.pi), y, math.pi,
                      lambda y: np.log1p(-c * c) - math.log(2 * math.pi) - np.log(scale)
                      - np.log((1 - c) ** 2 + 4 * c * np.sin(0.5 * y) ** 2))


@like_scipy(valid=_valid)
def pdf(x, c, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, c, loc, scale))
