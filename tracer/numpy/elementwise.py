"""How numpy's API on tensors maps to ``ir`` primitives: ``np.where`` and the ``*_like``
constructors, which stay with the tracer because they compute on tensors' plain
values (``np.where``'s one-argument form, the arrays to fill).

The other elementwise functions that are not ufuncs (clip, round, fix, sinc, i0)
are bound beside their primitives in ``ir.primitives.elementwise``.
"""

import numpy as np

from ir.primitives import elementwise as ew
from ir.bindings import array_shape
from tracer.numpy.arguments import plain
from tracer.core import NO_PARAMS, apply, is_traced, wrap
from tracer.sizes.declared import Dim


def _where(condition, x=None, y=None):
    if x is None and y is None:
        return np.where(plain(condition))
    return apply(ew.where, (condition, x, y), NO_PARAMS)


def _like(fill, value):
    def make(a, dtype=None, order="K", subok=True, shape=None):
        if shape is None and _has_symbolic_axes(a):
            return _filled_like(a, value, dtype)
        return wrap(np.asarray(fill(plain(a), dtype=dtype, order=order, subok=subok,
                                    shape=shape)))
    return make


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    dtype = np.dtype(dtype) if dtype is not None else plain(a).dtype
    if shape is None and _has_symbolic_axes(a) and not is_traced(fill_value):
        return _filled_like(a, fill_value, dtype)
    shape = array_shape(a) if shape is None else shape
    if is_traced(fill_value):
        return np.broadcast_to(np.astype(fill_value, dtype), shape)
    return wrap(np.full(shape, fill_value, dtype=dtype))


def _has_symbolic_axes(a):
    return is_traced(a) and any(isinstance(d, Dim) for d in a.shape)


def _filled_like(a, value, dtype):
    """``value`` in the shape of ``a``, which has symbolic axes: computed from ``a``
    (``np.zeros_like(x) + 1``), so generated code makes it at the size it is called with."""
    dtype = plain(a).dtype if dtype is None else np.dtype(dtype)
    filled = apply(ew.zeros_like, (a,), NO_PARAMS)
    if value != 0:
        filled = filled + value
    return filled if filled.dtype == dtype else np.astype(filled, dtype)


FUNCTIONS = {
    np.where: _where,
    np.zeros_like: _like(np.zeros_like, 0), np.ones_like: _like(np.ones_like, 1),
    np.empty_like: _like(np.zeros_like, 0), np.full_like: _full_like,
}
