"""Argument handling shared by the modules that map numpy's API onto primitives.

numpy functions take tensors, arrays, scalars and nested lists of them, and
axes in several spellings; these helpers read them the way numpy does.
"""

import numpy as np

from tracer.core import Tensor, value_of


def unwrap(values):
    """Plain numpy values for a sequence of arguments (tensors unwrapped, lists kept)."""
    return [plain(v) for v in values]


def unwrap_dict(kwargs):
    """``unwrap`` for keyword arguments."""
    return {k: plain(v) for k, v in kwargs.items()}


def plain(value):
    """``value`` with every tensor in it, however deeply nested in lists and tuples, unwrapped."""
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value_of(value)


def array_rank(x):
    return np.ndim(x._value) if isinstance(x, Tensor) else len(np.shape(plain(x)))


def array_shape(x):
    return x.shape if hasattr(x, "shape") else np.shape(x)


def normalize_axis(axis, ndim):
    """``axis`` (None, int or sequence, possibly negative) as None or a sorted tuple."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    normalized = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        normalized.append(a % ndim)
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return tuple(sorted(normalized))


def one_axis(axis, ndim):
    """One axis as a non-negative int (numpy's AxisError when out of range)."""
    return normalize_axis(axis, ndim)[0]


def along_axis(a, axis):
    """``a`` and one non-negative axis of it, for a function along one axis: ``axis=None``
    means along the flattened array, as in numpy (``np.ravel`` dispatches on tensors)."""
    if axis is None:
        a, axis = np.ravel(a), 0
    return a, one_axis(axis, array_rank(a))


def no_extras(name, **extras):
    given = [k for k, v in extras.items() if v is not None and v is not False]
    if given:
        raise TypeError(f"np.{name}(..., {', '.join(f'{k}=' for k in given)}) is not supported "
                        "on tracer tensors; call it without those arguments")
