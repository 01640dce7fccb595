"""How numpy's API on tensors maps to ``ir`` primitives: elementwise functions that are
not ufuncs (where, clip, round, fix, sinc, i0) and the ``*_like`` constructors.
"""

import numpy as np

from ir.primitives import elementwise as ew
from ir.bindings import array_shape, no_extras
from tracer.arguments import plain
from tracer.core import NO_PARAMS, apply, is_traced, wrap


def _where(condition, x=None, y=None):
    if x is None and y is None:
        return np.where(plain(condition))
    return apply(ew.where, (condition, x, y), NO_PARAMS)


def _clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue,
          max=np._NoValue, **kwargs):
    no_extras("clip", out=out)
    low = a_min if a_min is not np._NoValue else min
    high = a_max if a_max is not np._NoValue else max
    low = -np.inf if low is np._NoValue or low is None else low
    high = np.inf if high is np._NoValue or high is None else high
    return apply(ew.clip, (a, low, high), NO_PARAMS)


def _round(a, decimals=0, out=None):
    no_extras("round", out=out)
    return apply(ew.round_, (a,), {"decimals": int(decimals)})


def _fix(x, out=None):
    no_extras("fix", out=out)
    return apply(ew.trunc, (x,), NO_PARAMS)


def _sinc(x):
    return apply(ew.sinc, (x,), NO_PARAMS)


def _i0(x):
    return apply(ew.i0, (x,), NO_PARAMS)


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
    np.where: _where, np.clip: _clip, np.round: _round, np.around: _round, np.fix: _fix,
    np.sinc: _sinc, np.i0: _i0,
    np.zeros_like: _like(np.zeros_like), np.ones_like: _like(np.ones_like),
    np.empty_like: _like(np.zeros_like), np.full_like: _full_like,
}
