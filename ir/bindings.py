"""Which numpy function each primitive computes, and how numpy's arguments become its params.

A primitive's source spelling says how a node is written as a numpy call; its
binding is the inverse, how a numpy call is read as a node.  So each family
module binds numpy's functions to its primitives beside their definitions,
with ``@binds(np.cumsum)`` on a function of numpy's signature that applies the
primitive.  ``tracer`` dispatches numpy calls on tensors through ``NUMPY_FUNCTIONS``;
numpy functions composed of other numpy functions live in ``tracer``.

The helpers below read numpy's arguments the way numpy does.
"""

import numpy as np

NUMPY_FUNCTIONS = {}
"""``{numpy function: handler}`` for every numpy function bound to a primitive."""

LINEAR_ALGEBRA = "Linear algebra"
SHAPES = "Shapes, indexing, scans and order statistics"
COMPLEX_AND_FFT = "Complex numbers and FFT"
TOPICS = {}
"""``{numpy function: topic}`` for the bound functions beyond the core set: the family
the README lists each under (``tracer.diagnostics.coverage``)."""


def binds(*functions, topic=None):
    """Register the decorated handler as what each of ``functions`` does on recorded values,
    listed under ``topic`` (one of the titles above; ``None``: the core set)."""
    def register(handler):
        for function in functions:
            if function in NUMPY_FUNCTIONS:
                raise AssertionError(f"{function} is bound twice: to "
                                     f"{NUMPY_FUNCTIONS[function].__qualname__} and "
                                     f"{handler.__qualname__}")
            NUMPY_FUNCTIONS[function] = handler
            if topic is not None:
                TOPICS[function] = topic
        return handler
    return register


def array_shape(x):
    """The shape of a tensor, array, scalar or (nested) list of them, without converting it."""
    if hasattr(x, "shape"):
        return tuple(x.shape)
    if isinstance(x, (list, tuple)):
        return (len(x), *array_shape(x[0])) if x else (0,)
    return np.shape(x)


def array_rank(x):
    return len(array_shape(x))


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
    """Refuse numpy arguments a binding does not support, naming them."""
    for value in extras.values():
        if value is not None and value is not False:
            given = [k for k, v in extras.items() if v is not None and v is not False]
            raise TypeError(f"np.{name}(..., {', '.join(f'{k}=' for k in given)}) is not "
                            "supported on tracer tensors; call it without those arguments")
