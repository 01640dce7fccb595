"""``tracer.scipy.special``: scipy.special's functions that tapegen differentiates.

The ufuncs are scipy's own (a ufunc on a tensor records); ``logsumexp``,
``polygamma``, ``softmax``, ``log_softmax`` and ``multigammaln``, which scipy writes
in Python over arrays, and ``rel_entr``, a ufunc with no rule, are written here over
tensors, giving scipy's values in scipy's dtypes and shapes.
"""

import math

import numpy as np
import scipy.special as _scipy_special

from tracer import special as _tracer_special
from tracer.core import as_operand, value_of
from tracer.numpy.scipy_ufuncs import UFUNCS as _UFUNCS
from tracer.special import logsumexp


def softmax(x, axis=None):
    """``exp(x) / sum(exp(x), axis)``, the largest exponent taken out first."""
    return np.exp(log_softmax(x, axis=axis))


def log_softmax(x, axis=None):
    """``x - logsumexp(x, axis)``: the log of ``softmax``, without its underflow."""
    return x - logsumexp(x, axis=axis, keepdims=True)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (an int):
    ``d (d - 1) / 4 log(pi) + sum of gammaln(a - j / 2) for j < d``, in float64 as
    scipy's; refused, as scipy refuses, where ``a <= (d - 1) / 2``."""
    if int(d) != d or d < 1:
        raise ValueError(f"multigammaln's dimension d must be a positive integer, got {d!r}")
    a = _at_least_float64(as_operand(a))
    if np.any(value_of(a) <= (d - 1) / 2):
        raise ValueError(f"multigammaln of dimension {d} is defined for a > {(d - 1) / 2}, "
                         f"got a = {value_of(a)}")
    terms = [_scipy_special.gammaln(a - j / 2) for j in range(int(d))]
    return d * (d - 1) / 4 * math.log(math.pi) + sum(terms[1:], terms[0])


def polygamma(n, x):
    """``scipy.special.polygamma(n, x)``, differentiable in ``x``, in scipy's dtype: that
    of ``n`` and ``x`` together, so an integer ``n`` and float32 ``x`` give float64."""
    n, x = as_operand(n), as_operand(x)
    dtype = np.result_type(n.dtype, x.dtype, np.float16)
    return _tracer_special.polygamma(n, x if x.dtype == dtype else x.astype(dtype))


def rel_entr(x, y):
    """``x log(x / y)`` where both are positive, 0 where ``x`` is 0 and ``y`` is not
    negative, ``inf`` elsewhere, as scipy's; the branches not taken are computed at 1."""
    x, y = as_operand(x), as_operand(y)
    both = (x > 0) & (y > 0)
    xs, ys = np.where(both, x, 1.0), np.where(both, y, 1.0)
    zeros = np.zeros_like(xs * ys)  # (of the arguments' dtype, as scipy's result)
    outside = np.where((x == 0) & (y >= 0), zeros, zeros + np.inf)
    result = np.where(both, xs * np.log(xs / ys), outside)
    return result[()] if isinstance(result, np.ndarray) else result


def _at_least_float64(operand):
    dtype = np.promote_types(operand.dtype, np.float64)
    return operand if operand.dtype == dtype else operand.astype(dtype)


# (scipy.special.zeta is a function calling the ufunc _zeta, which records)
_NAMES = sorted({ufunc.__name__.lstrip("_") for ufunc in _UFUNCS} | {"psi"})
globals().update({name: getattr(_scipy_special, name) for name in _NAMES})

__all__ = [*_NAMES, "log_softmax", "logsumexp", "multigammaln", "polygamma", "rel_entr",
           "softmax"]
