"""How numpy's API on tensors maps to ``ir`` primitives: ``np.where`` and the ``*_like``
constructors, which stay with the tracer because they compute on tensors' plain
values (``np.where``'s one-argument form, the arrays to fill).

The other elementwise functions that are not ufuncs (clip, round, fix, sinc, i0)
are bound beside their primitives in ``ir.primitives.elementwise``.
"""

import numpy as np

from ir.primitives import elementwise as ew
from ir.bindings import array_shape
from tracer.arguments import plain
from tracer.core import NO_PARAMS, apply, is_traced, wrap


def _where(condition, x=None, y=None):
    if x is None and y is None:
        return np.where(plain(condition))
    return apply(ew.where, (condition, x, y), NO_PARAMS)


def _like(fill):
    def make(a, *args, **kwargs):
        return wrap(np.asarray(fill(plain(a), *args, **kwargs)))
    return make


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    dtype = np.dtype(dtype) if dtype is not None else plain(a).dtype
    shape = array_shape(a) if shape is None else shape
    if is_traced(fill_value):
        return np.broadcast_to(np.astype(fill_value, dtype), shape)
    return wrap(np.full(shape, fill_value, dtype=dtype))


FUNCTIONS = {
    np.where: _where,
    np.zeros_like: _like(np.zeros_like), np.ones_like: _like(np.ones_like),
    np.empty_like: _like(np.zeros_like), np.full_like: _full_like,
}
