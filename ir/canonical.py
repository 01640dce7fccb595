"""Hashable stand-ins for params and constants: what makes two nodes, or two loop bodies,
compute the same thing."""

import numpy as np


def canonical(value):
    """A hashable stand-in for a param or constant, equal only where numpy sees no difference.

    Python scalars keep their type (``1``, ``1.0`` and ``True`` type results
    differently; ``-0.0`` is not ``0.0``), arrays are compared by dtype, shape
    and bytes (their repr elides), dtypes however they were spelled.  A value
    with a ``canonical_key`` method (an opaque Python object, a loop body) gives
    its own.
    """
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, canonical(v)) for k, v in value.items()))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(canonical(v) for v in value)
    if isinstance(value, slice):
        return "slice", canonical(value.start), canonical(value.stop), canonical(value.step)
    key = getattr(value, "canonical_key", None)
    if key is not None:
        return key()
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return "dtype", np.dtype(value).str
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        return "array", array.dtype.str, array.shape, array.tobytes()
    return type(value).__name__, repr(value)
