"""Gathers along one axis: ``take_along_axis`` and its adjoint ``scatter_add_along_axis``,
with np.take_along_axis bound to the gather.

They are the indexing that sorts and partitions pass their gradients back
through (``reductions``), kept apart from ``shape``'s general indexing
(``getitem``), which the reshapes, joins and casts there build on, so that
neither module outgrows one family.  ``axis`` is an int counted from the end,
as numpy's default ``-1`` is, so the rules hold under extra leading axes.
"""

import inspect

import numpy as np

from ir.autodiff.batching import Batched, first_batched_only
from ir.bindings import SHAPES, along_axis, array_rank, binds
from ir.primitive import LINEAR, READS_NOTHING, REAL_LINEAR, VALUE_KINDS, Primitive, shape_of
from ir.primitives.broadcast import broadcast_to
from ir.primitives.shape import call_along, reshape
from ir.sizes.shape_rules import scattered_along, taken_along


def _scatter_add_along_axis(values, indices, axis, shape):
    """Zeros of ``shape`` with ``values`` added where ``np.take_along_axis(_, indices, axis)``
    reads them (repeated indices add up)."""
    out = np.zeros(shape, values.dtype)
    index = list(np.indices(shape, sparse=True))
    index[axis] = indices
    np.add.at(out, tuple(index), values)
    return out


@first_batched_only
def _batch_take_along_axis(prim, args, params, size):
    x, indices = args
    indices = reshape(indices, shape=(1,) + tuple(shape_of(indices)))
    return Batched(prim(x.value, indices, axis=params["axis"] % x.ndim + 1), size)


@first_batched_only
def _batch_scatter_add_along_axis(prim, args, params, size):
    values, indices = args
    shape = tuple(shape_of(indices))
    indices = broadcast_to(reshape(indices, shape=(1,) + shape), shape=(size,) + shape)
    return Batched(prim(values.value, indices, axis=params["axis"] % values.ndim + 1,
                        shape=(size,) + tuple(params["shape"])), size)


take_along_axis = Primitive(
    "take_along_axis", lambda x, indices, axis: np.take_along_axis(x, indices, axis=axis),
    reads=READS_NOTHING, source=call_along("np.take_along_axis", default=None),
    complex_rules=REAL_LINEAR, linearity=LINEAR, batch=_batch_take_along_axis,
    shape_rule=taken_along,
    vjps=(lambda g, out, x, indices, axis:
          scatter_add_along_axis(g, indices, axis=axis, shape=shape_of(x)),
          None))


@binds(np.take_along_axis, topic=SHAPES)
def _take_along_axis(arr, indices, axis=-1):
    """Indices that primitives dispatch on (the tracer's tensors and variables) stay
    themselves, so a graph keeps them as data; others are read as an array."""
    positions = indices if indices.__class__ in VALUE_KINDS else np.asarray(indices)
    if positions.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None and positions.ndim != 1:
        raise ValueError("when axis=None, `indices` must have a single dimension.")
    arr, axis = along_axis(arr, axis)
    ndim = array_rank(arr)
    if ndim != positions.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    return take_along_axis(arr, positions, axis=axis - ndim)


scatter_add_along_axis = Primitive(
    "scatter_add_along_axis", _scatter_add_along_axis, reads=READS_NOTHING,
    complex_rules=REAL_LINEAR, linearity=LINEAR, batch=_batch_scatter_add_along_axis,
    source=lambda params, shapes: "_scatter_add_along_axis({0}, {1}, "
                                  f"axis={params['axis'] % len(shapes[0])}, "
                                  f"shape={tuple(params['shape'])!r})",
    helpers={"_scatter_add_along_axis": inspect.getsource(_scatter_add_along_axis)},
    shape_rule=scattered_along,
    vjps=(lambda g, out, values, indices, axis, shape: take_along_axis(g, indices, axis=axis),
          None))
