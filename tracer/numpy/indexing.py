"""Indexing tensors: ``t[key]`` with basic and advanced keys, recorded as one ``getitem``
whose index arrays are operands, so a graph keeps them as data.
"""

import numpy as np

from ir.primitives import shape as shape_ops
from ir.primitives.shape import IndexArg
from tracer.core import Tensor, apply, value_of
from tracer.sizes.declared import Dim


def index_key(key):
    """Split a user's index into an ``ir`` key and the index arrays it uses."""
    if not isinstance(key, tuple):
        key = (key,)
    parts = []
    arrays = []
    for k in key:
        tensor = k if isinstance(k, Tensor) else None
        k = value_of(k)
        if k is None or k is Ellipsis or isinstance(k, slice):
            parts.append(_plain_slice(k) if isinstance(k, slice) else k)
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            parts.append(int(k))
        else:
            array = np.asarray(k)
            if array.dtype.kind not in "biu":
                raise IndexError("only integers, slices, ..., None and integer or boolean "
                                 f"arrays are valid indices (got {array.dtype} values)")
            # A mask selects what its nonzero() positions select; integer
            # positions keep the result's shape a function of the index shapes.
            # A mask tensor's positions are recorded from it, so a graph finds
            # them from the mask it is given; an integer tensor stays itself,
            # so a graph keeps it as named data.
            if array.dtype.kind == "b" and array.ndim:
                indices = array.nonzero() if tensor is None else np.nonzero(tensor)
            else:
                indices = (array if tensor is None else tensor,)
            for index in indices:
                parts.append(IndexArg(len(arrays)))
                arrays.append(index)
    return tuple(parts), arrays


def _check_masks(x, key):
    """Raise numpy's own IndexError for a boolean mask that does not fit ``x``.

    Masks are recorded as their nonzero() positions, which would not notice.
    """
    parts = key if isinstance(key, tuple) else (key,)
    if any(np.asarray(value_of(k)).dtype == np.bool_ for k in parts
           if k is not None and k is not Ellipsis and not isinstance(k, slice)):
        probe = np.broadcast_to(np.zeros((), np.bool_), np.shape(value_of(x)))
        probe[tuple(value_of(k) for k in parts)]


def _plain_slice(s):
    """A slice of plain ints; a bound that is a symbolic size (``x[:n // 2]``) stays one,
    so the graph slices by its expression."""
    def plain(v):
        return None if v is None else v if isinstance(v, Dim) else int(v)
    return slice(plain(s.start), plain(s.stop), plain(s.step))


def getitem(x, key):
    """``x[key]``: basic and advanced indexing, recorded as one ``getitem``."""
    _check_masks(x, key)
    key, arrays = index_key(key)
    return apply(shape_ops.getitem, (x, *arrays), {"key": key})
