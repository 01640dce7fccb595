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


def flat_leaves(args, kwargs):
    """Every leaf of the arguments, however deeply nested in lists and tuples."""
    out = []
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, (list, tuple)):
            out.extend(flat_leaves(value, {}))
        else:
            out.append(value)
    return out


def is_traced(value):
    """Whether ``value`` is a tensor or a variable (anything ``apply`` reads as one)."""
    return isinstance(value, Tensor) or hasattr(value, "_read")


def holds_traced(values):
    """Whether a list or tuple holds a tensor or variable, however deeply nested."""
    return any(is_traced(v) for v in flat_leaves(values, {}))


def as_operand(value):
    """``value`` as an operand of a primitive: tensors and variables as they are, nested
    lists holding some as the tensor ``np.stack`` builds from them, the rest as arrays.

    numpy reads ``[1.0, t]`` as an array; a primitive's rules read operands' shapes.
    """
    if isinstance(value, (list, tuple)) and holds_traced(value):
        return np.stack([as_operand(v) for v in value])
    return value if is_traced(value) else np.asarray(value)


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


def no_extras(name, **extras):
    given = [k for k, v in extras.items() if v is not None and v is not False]
    if given:
        raise TypeError(f"np.{name}(..., {', '.join(f'{k}=' for k in given)}) is not supported "
                        "on tracer tensors; call it without those arguments")
