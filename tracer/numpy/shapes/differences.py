"""How numpy's API on tensors maps to ``ir`` primitives: differences and numerical
gradients (diff, gradient).

They are slices and arithmetic, as numpy computes them, so their derivatives
of every order come from those.  The running sums and products (np.cumsum,
np.cumprod), one primitive each, are bound beside theirs in
``ir.primitives.reductions``.
"""

import numpy as np

from ir.bindings import array_rank, array_shape, one_axis
from ir.primitives.shape import indexed, key_along
from tracer.core import as_operand, is_traced, value_of


def _diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    ndim = array_rank(a)
    if ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = one_axis(axis, ndim)
    edge = list(array_shape(a))
    edge[axis] = 1
    ends = [np.broadcast_to(e, tuple(edge)) if array_rank(e) == 0 else e
            for e in (prepend, append) if e is not np._NoValue]
    if ends:
        first = [ends.pop(0)] if prepend is not np._NoValue else []
        a = np.concatenate(first + [a] + ends, axis=axis)
    for _ in range(n):
        a = indexed(a, key_along(axis, slice(1, None))) - indexed(a, key_along(axis, slice(None, -1)))
    return a


def _gradient(f, *varargs, axis=None, edge_order=1):
    """np.gradient as numpy computes it, in slices and arithmetic, so its derivatives of
    every order (by ``f`` and by traced spacings) come from those."""
    f = as_operand(f)
    shape = array_shape(f)
    axes = (tuple(range(len(shape))) if axis is None
            else np.lib.array_utils.normalize_axis_tuple(axis, len(shape)))
    if not varargs:
        steps = [1.0] * len(axes)
    elif len(varargs) == 1 and array_rank(varargs[0]) == 0:
        steps = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        steps = [_steps(d, shape[a]) for d, a in zip(varargs, axes)]
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    dtype = np.asarray(value_of(f)).dtype
    if dtype.kind not in "fc":
        f, dtype = (np.astype(f, np.float64) if dtype.kind in "iu" else f), np.dtype(np.float64)
    slopes = []
    for axis, step in zip(axes, steps):
        if shape[axis] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                             "least (edge_order + 1) elements are required.")
        slope = _slope(f, axis, step, edge_order, len(shape))
        slopes.append(slope if slope.dtype == dtype else np.astype(slope, dtype))
    return slopes[0] if len(slopes) == 1 else tuple(slopes)


def _steps(spacing, length):
    """One axis's spacing as np.gradient reads it: a scalar as it is, coordinates as their
    differences, or as the one difference when they are plain and evenly spaced.  Traced
    coordinates keep every difference (the formula for uneven spacing holds for even
    spacing too), so each coordinate keeps its gradient."""
    if array_rank(spacing) == 0:
        return spacing
    coordinates = as_operand(spacing)
    if array_rank(coordinates) != 1:
        raise ValueError("distances must be either scalars or 1d")
    if array_shape(coordinates)[0] != length:
        raise ValueError("when 1d, distances must match the length of the corresponding "
                         "dimension")
    if np.asarray(value_of(coordinates)).dtype.kind in "iu":
        coordinates = np.astype(coordinates, np.float64)
    steps = np.diff(coordinates)
    if not is_traced(steps) and (steps == steps[0]).all():
        return steps[0]
    return steps


def _slope(f, axis, step, edge_order, ndim):
    """np.gradient of ``f`` along one axis: central differences inside, one-sided ones
    of ``edge_order`` at both ends, numpy's formulas term for term."""
    def at(start, stop):
        return f[key_along(axis, slice(start, stop))]

    if array_rank(step) == 0:
        inside = (at(2, None) - at(None, -2)) / (2. * step)
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / step
            last = (at(-1, None) - at(-2, -1)) / step
        else:
            first = (-1.5 / step) * at(0, 1) + (2. / step) * at(1, 2) + (-0.5 / step) * at(2, 3)
            last = (0.5 / step) * at(-3, -2) + (-2. / step) * at(-2, -1) + (1.5 / step) * at(-1, None)
    else:
        along = [1] * ndim
        along[axis] = -1
        dx1, dx2 = np.reshape(step[:-1], along), np.reshape(step[1:], along)
        inside = (-dx2 / (dx1 * (dx1 + dx2)) * at(None, -2)
                  + (dx2 - dx1) / (dx1 * dx2) * at(1, -1)
                  + dx1 / (dx2 * (dx1 + dx2)) * at(2, None))
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / step[0]
            last = (at(-1, None) - at(-2, -1)) / step[-1]
        else:
            dx1, dx2 = step[0], step[1]
            first = (-(2. * dx1 + dx2) / (dx1 * (dx1 + dx2)) * at(0, 1)
                     + (dx1 + dx2) / (dx1 * dx2) * at(1, 2)
                     - dx1 / (dx2 * (dx1 + dx2)) * at(2, 3))
            dx1, dx2 = step[-2], step[-1]
            last = (dx2 / (dx1 * (dx1 + dx2)) * at(-3, -2)
                    - (dx2 + dx1) / (dx1 * dx2) * at(-2, -1)
                    + (2. * dx2 + dx1) / (dx2 * (dx1 + dx2)) * at(-1, None))
    return np.concatenate([first, inside, last], axis=axis)


FUNCTIONS = {np.diff: _diff, np.gradient: _gradient}
