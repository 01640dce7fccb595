"""Broadcasting and its adjoint: ``broadcast_to`` and ``sum_to`` are each other's VJP;
np.broadcast_to is bound to the first."""

import numpy as np

from ir.autodiff.batching import Batched, first_batched_only, padded
from ir.bindings import array_shape, binds
from ir.primitive import (LINEAR, READS_NOTHING, REAL_LINEAR, Primitive, shape_of,
                          spell_value)
from ir.sizes.shape_rules import broadcast_shapes, broadcast_target, summed_to
from ir.sizes.traced import same_size

# Defined in ``shape``, which builds on this module: ``ir.primitive_references`` sets it.
reshape = None


def _summed_axes(x_shape, shape):
    """The axes ``sum_to`` reduces: leading extra axes, then axes broadcast from size one."""
    lead = len(x_shape) - len(shape)
    return tuple(range(lead)), tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and x_shape[lead + i] != 1)


def _sum_to(x, shape):
    leading, kept = _summed_axes(np.shape(x), shape)
    axes = leading + kept
    # np.add.reduce is np.sum (the same pairwise sums) without its Python wrapper.
    summed = np.add.reduce(x, axis=axes, keepdims=True) if axes else x
    return np.reshape(summed, shape)


def _spell_sum_to(params, shapes):
    shape = tuple(params["shape"])
    leading, kept = _summed_axes(shapes[0], shape)
    if not kept:
        return f"{{0}}.sum(axis={spell_value(leading)})" if leading else "{0}"
    if not leading:
        return f"{{0}}.sum(axis={spell_value(kept)}, keepdims=True)"
    return f"{{0}}.sum(axis={spell_value(leading + kept)}, keepdims=True).reshape({shape!r})"


def _aval_dtype(aval):
    return aval[1] if isinstance(aval, tuple) else np.result_type(aval)


@first_batched_only
def _batch_broadcast_to(prim, args, params, size):
    shape = tuple(params["shape"])
    return Batched(prim(padded(args[0], len(shape)), shape=(size,) + shape), size)


@first_batched_only
def _batch_sum_to(prim, args, params, size):
    """Summed to the shape with unit axes kept after the batch axis, then reshaped
    (``reshape`` is defined in ``shape``, which builds on this module)."""
    x, shape = args[0], tuple(params["shape"])
    extra = x.ndim - len(shape)
    summed = prim(x.value, shape=(size,) + (1,) * extra + shape)
    return Batched(reshape(summed, shape=(size,) + shape), size)


broadcast_to = Primitive(
    "broadcast_to", lambda x, shape: np.broadcast_to(x, shape),
    abstract=lambda avals, p: (tuple(p["shape"]), _aval_dtype(avals[0])),
    reads=READS_NOTHING, complex_rules=REAL_LINEAR, linearity=LINEAR, batch=_batch_broadcast_to,
    source=lambda params, shapes: f"np.broadcast_to({{0}}, {tuple(params['shape'])!r})",
    value_name="spread", shape_rule=broadcast_target,
    vjps=(lambda g, out, x, shape: sum_to(g, shape=shape_of(x)),))
sum_to = Primitive(
    "sum_to", _sum_to,
    abstract=lambda avals, p: (tuple(p["shape"]), _aval_dtype(avals[0])),
    reads=READS_NOTHING, source=_spell_sum_to, complex_rules=REAL_LINEAR, linearity=LINEAR,
    batch=_batch_sum_to, value_name="summed", shape_rule=summed_to,
    vjps=(lambda g, out, x, shape: broadcast_to(g, shape=shape_of(x)),))


@binds(np.broadcast_to)
def _broadcast_to(array, shape, subok=False):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    have = tuple(array_shape(array))
    if len(have) == len(shape) and all(map(same_size, have, shape)):  # (no guard on sizes)
        return array
    broadcast_shapes(have, shape)
    return broadcast_to(array, shape=shape)


def unbroadcast(cotangent, like):
    """Sum a cotangent back to the shape of the operand ``like`` it belongs to.  Shapes
    are compared as expressions, without a guard: where they differ, ``sum_to`` is also
    right at sizes that make them equal."""
    shape, have = shape_of(like), shape_of(cotangent)
    if len(have) == len(shape) and all(map(same_size, have, shape)):
        return cotangent
    return sum_to(cotangent, shape=shape)
