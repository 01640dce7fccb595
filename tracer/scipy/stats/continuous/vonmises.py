"""The von Mises distribution, as ``scipy.stats.vonmises``: its density, periodic in
``y = (x - loc) / scale`` as scipy's, differentiable in ``x``, ``kappa``, ``loc`` and
``scale``."""

import math

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy


def _valid(kappa, scale):
    """scipy's domain of the parameters (NaN outside it)."""
    return (kappa >= 0) & (scale > 0)


@like_scipy(valid=_valid)
def logpdf(x, kappa, loc=0.0, scale=1.0):
    """``kappa (cos(y) - 1) - log(2 pi i0e(kappa) scale)``: the normaliser
    ``I0(kappa) = exp(kappa) i0e(kappa)``, its ``exp(kappa)`` cancelled against the
    numerator's, so a large ``kappa`` overflows neither."""
    y = (x - loc) / scale
    return kappa * (np.cos(y) - 1) - np.log(2 * math.pi * sc.i0e(kappa)) - np.log(scale)


@like_scipy(valid=_valid)
def pdf(x, kappa, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, kappa, loc, scale))
