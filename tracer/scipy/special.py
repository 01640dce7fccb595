"""``tracer.scipy.special``: scipy.special's functions that tapegen differentiates.

The ufuncs are scipy's own (a ufunc on a tensor records); ``logsumexp``,
``polygamma``, ``softmax`` and ``log_softmax``, which scipy writes in Python over
arrays, are written here over tensors.
"""

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


_NAMES = sorted({ufunc.__name__ for ufunc in _UFUNCS} | {"psi"})
globals().update({name: getattr(_scipy_special, name) for name in _NAMES})

__all__ = [*_NAMES, "log_softmax", "logsumexp", "polygamma", "softmax"]
