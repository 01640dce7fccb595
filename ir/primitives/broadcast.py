"""Broadcasting and its adjoint: ``broadcast_to`` and ``sum_to`` are each other's VJP."""

import numpy as np

from ir.primitive import READS_NOTHING, Primitive, shape_of


def _sum_to(x, shape):
    x_shape = np.shape(x)
    lead = len(x_shape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and x_shape[lead + i] != 1)
    summed = np.sum(x, axis=axes, keepdims=True) if axes else x
    return np.reshape(summed, shape)


broadcast_to = Primitive(
    "broadcast_to", lambda x, shape: np.broadcast_to(x, shape),
    abstract=lambda avals, p: (tuple(p["shape"]), _aval_dtype(avals[0])),
    reads=READS_NOTHING)
sum_to = Primitive(
    "sum_to", _sum_to,
    abstract=lambda avals, p: (tuple(p["shape"]), _aval_dtype(avals[0])),
    reads=READS_NOTHING)

broadcast_to.defvjp(lambda g, out, x, shape: sum_to(g, shape=shape_of(x)))
sum_to.defvjp(lambda g, out, x, shape: broadcast_to(g, shape=shape_of(x)))


def _aval_dtype(aval):
    return aval[1] if isinstance(aval, tuple) else np.result_type(aval)


def unbroadcast(cotangent, like):
    """Sum a cotangent back to the shape of the operand ``like`` it belongs to."""
    shape = shape_of(like)
    if shape_of(cotangent) == shape:
        return cotangent
    return sum_to(cotangent, shape=shape)
