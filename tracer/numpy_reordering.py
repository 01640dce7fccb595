"""How numpy's API on tensors maps to ``ir`` primitives: flips, rolls and rotations.

Each is a reversed slice, slices joined the other way round, or a transpose,
so their derivatives of every order come from those.
"""

import numpy as np

from ir.bindings import array_rank, array_shape, normalize_axis, one_axis
from tracer.arguments import plain
from tracer.numpy_common import indexed, key_along


def _flip(m, axis=None):
    ndim = array_rank(m)
    axes = range(ndim) if axis is None else normalize_axis(axis, ndim)
    if not axes:
        return m
    reversed_ = slice(None, None, -1)
    return indexed(m, tuple(reversed_ if i in axes else slice(None)
                           for i in range(max(axes) + 1)))


def _fliplr(m):
    if array_rank(m) < 2:
        raise ValueError("Input must be >= 2-d.")
    return _flip(m, 1)


def _flipud(m):
    if array_rank(m) < 1:
        raise ValueError("Input must be >= 1-d.")
    return _flip(m, 0)


def _roll(a, shift, axis=None):
    if axis is None:
        return np.reshape(_roll(np.ravel(a), shift, 0), array_shape(a))
    shape = array_shape(a)
    axes = [int(i) for i in np.atleast_1d(axis)]
    pairs = np.broadcast(np.asarray(plain(shift)), np.asarray(axes))
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = [0] * len(shape)
    for step, ax in pairs:
        shifts[one_axis(ax, len(shape))] += int(step)
    for ax, step in enumerate(shifts):
        offset = step % shape[ax] if shape[ax] else 0
        if offset:
            a = np.concatenate([indexed(a, key_along(ax, slice(-offset, None))),
                                indexed(a, key_along(ax, slice(None, -offset)))], axis=ax)
    return a


def _rot90(m, k=1, axes=(0, 1)):
    axes = tuple(axes)
    ndim = array_rank(m)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == ndim:
        raise ValueError("Axes must be different.")
    first, second = (one_axis(a, ndim) for a in axes)
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return _flip(m, (first, second))
    order = list(range(ndim))
    order[first], order[second] = order[second], order[first]
    if k == 1:
        return np.transpose(_flip(m, second), order)
    return _flip(np.transpose(m, order), second)


def _rollaxis(a, axis, start=0):
    ndim = array_rank(a)
    axis = one_axis(axis, ndim)
    if not -ndim <= start <= ndim:
        raise np.exceptions.AxisError(f"'start' arg requires {-ndim} <= start < {ndim + 1}, "
                                      f"but {start} was passed in")
    start = start + ndim if start < 0 else start
    if axis < start:
        start -= 1
    if axis == start:
        return a
    order = [i for i in range(ndim) if i != axis]
    order.insert(start, axis)
    return np.transpose(a, order)


FUNCTIONS = {
    np.flip: _flip, np.fliplr: _fliplr, np.flipud: _flipud, np.roll: _roll,
    np.rot90: _rot90, np.rollaxis: _rollaxis,
}
