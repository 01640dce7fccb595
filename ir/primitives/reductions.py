"""Reductions over axes: ``sum``, ``mean``, ``prod``, ``max``, ``min``, and the
gradient-free ``argmax`` and ``argmin``.

Every reduction takes ``axis`` (a tuple of non-negative ints, or ``None`` for
all axes) and ``keepdims``.  Rules first restore the reduced axes as size one
(``_keep``) and then broadcast back.  ``max``/``min`` split the gradient
equally among tied elements, as TensorFlow does.
"""

import numpy as np

from ir.primitive import READS_NOTHING, READS_X, Primitive, call, dtype_of, shape_of
from ir.primitives.broadcast import broadcast_to
from ir.primitives.elementwise import equal
from ir.primitives.shape import cast, concatenate, getitem, reshape, transpose


def kept_shape(shape, axis):
    """``shape`` with the reduced axes kept as size one."""
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else d for i, d in enumerate(shape))


def reduced_size(shape, axis):
    """How many elements each output element of a reduction summarises."""
    axes = range(len(shape)) if axis is None else axis
    return int(np.prod([shape[i] for i in axes], dtype=np.int64))


def _keep(value, x, axis, keepdims):
    """A reduction's cotangent or output, reshaped so it broadcasts against ``x``."""
    if keepdims:
        return value
    return reshape(value, shape=kept_shape(shape_of(x), axis))


def _spread(value, x, axis, keepdims):
    return broadcast_to(_keep(value, x, axis, keepdims), shape=shape_of(x))


def _reduction(name, impl, reads):
    return Primitive(name, lambda x, axis, keepdims: impl(x, axis=axis, keepdims=keepdims),
                     reads=reads, source=call(f"np.{name}", axis=None, keepdims=False))


sum_ = _reduction("sum", np.sum, reads=READS_NOTHING).defvjp(
    lambda g, out, x, axis, keepdims: _spread(g, x, axis, keepdims))
mean = _reduction("mean", np.mean, reads=READS_NOTHING).defvjp(
    lambda g, out, x, axis, keepdims:
        _spread(g / reduced_size(shape_of(x), axis), x, axis, keepdims))


def _slice_last(v, start=None, stop=None, step=None):
    return getitem(v, key=(Ellipsis, slice(start, stop, step)))


def _exclusive_cumprod(v):
    """Products of the elements before each one along the last axis.

    A log-depth scan of multiplications and slices: no division, so it is
    exact at zeros, and its own derivatives come from those primitives.
    """
    last = len(shape_of(v)) - 1
    n = shape_of(v)[-1]
    step = 1
    while step < n:
        v = concatenate(_slice_last(v, stop=step),
                        _slice_last(v, start=step) * _slice_last(v, stop=-step), axis=last)
        step *= 2
    ones = np.ones(shape_of(v)[:-1] + (1,), dtype_of(v))
    return _slice_last(concatenate(ones, v, axis=last), stop=n)


def _prod_vjp(g, out, x, axis, keepdims):
    # d prod / d x_i is the product of all the other elements.  prod / x_i
    # would be shorter but is nan at zeros, so take the product of the
    # elements before x_i times the product of those after it instead.
    shape = shape_of(x)
    reduced = range(len(shape)) if axis is None else axis
    kept = [i for i in range(len(shape)) if i not in reduced]
    order = kept + list(reduced)
    lined_up = transpose(x, axes=tuple(order))
    rows = reshape(lined_up, shape=tuple(shape[i] for i in kept) + (reduced_size(shape, axis),))
    before = _exclusive_cumprod(rows)
    after = _slice_last(_exclusive_cumprod(_slice_last(rows, step=-1)), step=-1)
    others = reshape(before * after, shape=shape_of(lined_up))
    others = transpose(others, axes=tuple(int(i) for i in np.argsort(order)))
    return _spread(g, x, axis, keepdims) * others


prod = _reduction("prod", np.prod, reads=READS_X).defvjp(_prod_vjp)


def _extremum_vjp(g, out, x, axis, keepdims):
    # Counting ties in x's own dtype keeps a float32 gradient float32.
    chosen = cast(equal(x, _keep(out, x, axis, keepdims)), dtype=dtype_of(x))
    ties = sum_(chosen, axis=axis, keepdims=True)
    return _spread(g, x, axis, keepdims) * (chosen / ties)


max_ = _reduction("max", np.max, reads={0: (0, "out")}).defvjp(_extremum_vjp)
min_ = _reduction("min", np.min, reads={0: (0, "out")}).defvjp(_extremum_vjp)


def _position(name, impl):
    return Primitive(name, lambda x, axis, keepdims: impl(x, axis=axis, keepdims=keepdims),
                     no_gradient="returns integer positions",
                     source=call(f"np.{name}", axis=None, keepdims=False))


# ``axis`` here is one non-negative int or None (flattened), as numpy's argmax takes.
argmax = _position("argmax", np.argmax)
argmin = _position("argmin", np.argmin)
