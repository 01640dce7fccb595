"""Reductions over axes: ``sum``, ``mean``, ``prod``, ``max``, ``min``.

Every reduction takes ``axis`` (a tuple of non-negative ints, or ``None`` for
all axes) and ``keepdims``.  Rules first restore the reduced axes as size one
(``_keep``) and then broadcast back.  ``max``/``min`` split the gradient
equally among tied elements, as TensorFlow does.
"""

import numpy as np

from ir.primitive import Primitive, shape_of
from ir.primitives.broadcast import broadcast_to
from ir.primitives.elementwise import equal
from ir.primitives.shape import reshape


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


def _reduction(name, impl):
    return Primitive(name, lambda x, axis, keepdims: impl(x, axis=axis, keepdims=keepdims))


sum_ = _reduction("sum", np.sum).defvjp(
    lambda g, out, x, axis, keepdims: _spread(g, x, axis, keepdims))
mean = _reduction("mean", np.mean).defvjp(
    lambda g, out, x, axis, keepdims:
        _spread(g / reduced_size(shape_of(x), axis), x, axis, keepdims))
# d prod / d x_i = prod / x_i: exact away from zeros, where it gives inf/nan.
prod = _reduction("prod", np.prod).defvjp(
    lambda g, out, x, axis, keepdims: _spread(g * out, x, axis, keepdims) / x)


def _extremum_vjp(g, out, x, axis, keepdims):
    chosen = equal(x, _keep(out, x, axis, keepdims))
    ties = _keep(sum_(chosen, axis=axis, keepdims=False), x, axis, False)
    return _spread(g, x, axis, keepdims) * chosen / ties


max_ = _reduction("max", np.max).defvjp(_extremum_vjp)
min_ = _reduction("min", np.min).defvjp(_extremum_vjp)
