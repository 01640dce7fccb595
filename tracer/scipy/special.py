"""``tracer.scipy.special``: scipy.special's functions that tapegen differentiates.

The ufuncs are scipy's own (a ufunc on a tensor records); ``logsumexp``,
``polygamma``, ``softmax``, ``log_softmax`` and ``multigammaln``, which scipy writes
in Python over arrays, and ``rel_entr``, a ufunc with no rule, are written here over
tensors.
"""

import math

import numpy as np
import scipy.special as _scipy_special

from tracer.numpy_special import UFUNCS as _UFUNCS
from tracer.special import logsumexp, polygamma


def softmax(x, axis=None):
    """``exp(x) / sum(exp(x), axis)``, the largest exponent taken out first."""
    return np.exp(log_softmax(x, axis=axis))


def log_softmax(x, axis=None):
    """``x - logsumexp(x, axis)``: the log of ``softmax``, without its underflow."""
    return x - logsumexp(x, axis=axis, keepdims=True)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (an int):
    ``d (d - 1) / 4 log(pi) + sum of gammaln(a - j / 2) for j < d``."""
    if int(d) != d or d < 1:
        raise ValueError(f"multigammaln's dimension d must be a positive integer, got {d!r}")
    terms = [_scipy_special.gammaln(a - j / 2) for j in range(int(d))]
    return d * (d - 1) / 4 * math.log(math.pi) + sum(terms[1:], terms[0])


def rel_entr(x, y):
    """``x log(x / y)`` where both are positive, 0 where ``x`` is 0 and ``y`` is not
    negative, ``inf`` elsewhere, as scipy's; the branches not taken are computed at 1."""
    both = (x > 0) & (y > 0)
    xs, ys = np.where(both, x, 1.0), np.where(both, y, 1.0)
    zeros = np.zeros_like(xs * ys)  # (of the arguments' dtype, as scipy's result)
    outside = np.where((x == 0) & (y >= 0), zeros, zeros + np.inf)
    return np.where(both, xs * np.log(xs / ys), outside)


# (scipy.special.zeta is a function calling the ufunc _zeta, which records)
_NAMES = sorted({ufunc.__name__.lstrip("_") for ufunc in _UFUNCS} | {"psi"})
globals().update({name: getattr(_scipy_special, name) for name in _NAMES})

__all__ = [*_NAMES, "log_softmax", "logsumexp", "multigammaln", "polygamma", "rel_entr",
           "softmax"]
