"""Reductions composed of others on tensors: variance and standard deviation.

The reductions that are one primitive each (sum, prod, max, min, mean, argmax,
argmin) are bound beside their primitives in ``ir.primitives.reductions``.
"""

import numpy as np

from ir.bindings import array_rank, array_shape, no_extras, normalize_axis
from ir.primitives import reductions


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
         correction=None):
    no_extras("var", dtype=dtype, out=out, where=where, mean=mean)
    if correction is not None:
        ddof = correction
    axes = normalize_axis(axis, array_rank(a))
    centered = a - np.mean(a, axis=axes, keepdims=True)
    # As numpy: complex values vary by mean(|x - mean(x)|**2), a real number.
    squares = (np.real(centered * np.conj(centered)) if np.iscomplexobj(a)
               else centered * centered)
    count = reductions.reduced_size(array_shape(a), axes)
    total = np.sum(squares, axis=axes, keepdims=bool(keepdims))
    return total / max(count - ddof, 0)


def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
         correction=None):
    return np.sqrt(_var(a, axis, dtype, out, ddof, keepdims, where, mean, correction))


FUNCTIONS = {np.var: _var, np.std: _std}
