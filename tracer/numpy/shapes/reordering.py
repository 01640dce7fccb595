"""How numpy's API on tensors maps to ``ir`` primitives: rolls and rotations.

A roll is slices joined the other way round, a rotation flips and a transpose,
so their derivatives of every order come from those.  The flips (np.flip,
np.fliplr, np.flipud: one reversed slice) and np.rollaxis (one transpose) are
bound beside their primitives in ``ir.primitives.shape``.
"""

import numpy as np

from ir.bindings import array_rank, array_shape, one_axis
from ir.primitives.shape import indexed, key_along
from ir.sizes.traced import TracedSize
from tracer.numpy.arguments import plain


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
        if isinstance(shape[ax], TracedSize):  # (symbolic: a roll by 0 joins all and none)
            cut = shape[ax] - step % shape[ax]
            a = np.concatenate([indexed(a, key_along(ax, slice(cut, None))),
                                indexed(a, key_along(ax, slice(None, cut)))], axis=ax)
            continue
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
        return np.flip(m, (first, second))
    order = list(range(ndim))
    order[first], order[second] = order[second], order[first]
    if k == 1:
        return np.transpose(np.flip(m, second), order)
    return np.flip(np.transpose(m, order), second)


FUNCTIONS = {np.roll: _roll, np.rot90: _rot90}
