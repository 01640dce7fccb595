"""Shape and indexing primitives: reshape, transpose, concatenate, stack,
indexing (``getitem``) and its adjoint ``scatter_add``, and dtype casts.

Their rules read only shapes (``READS_NOTHING``); index arrays are
integers, which tapes never track, so they are always kept.

An indexing key is kept as a tuple of ints, slices, ``None``, ``Ellipsis``
and ``IndexArg(k)`` placeholders; the k-th placeholder stands for the k-th
index array, which is an input of the node (integer or boolean, so no
gradient flows to it).  Prefer integer arrays: a boolean mask's result shape
depends on its values, which shape inference from ``(shape, dtype)`` cannot
see, so the tracer passes a mask as its ``nonzero()`` positions.
"""

import numpy as np

from ir.primitive import READS_NOTHING, Primitive, dtype_of, is_trainable, shape_of


class IndexArg:
    """Placeholder in an indexing key for the index array passed as input ``1 + position``."""

    __slots__ = ("position",)

    def __init__(self, position):
        self.position = position

    def __eq__(self, other):
        return isinstance(other, IndexArg) and other.position == self.position

    def __hash__(self):
        return hash(("IndexArg", self.position))

    def __repr__(self):
        return f"IndexArg({self.position})"


def build_key(key, arrays):
    """The numpy index for ``key`` with its placeholders filled from ``arrays``."""
    return tuple(arrays[k.position] if isinstance(k, IndexArg) else k for k in key)


def is_basic(key):
    """True when the key has no index arrays: every element is selected at most once."""
    return not any(isinstance(k, IndexArg) for k in key)


reshape = Primitive("reshape", lambda x, shape: np.reshape(x, shape), reads=READS_NOTHING)
reshape.defvjp(lambda g, out, x, shape: reshape(g, shape=shape_of(x)))

transpose = Primitive("transpose", lambda x, axes: np.transpose(x, axes), reads=READS_NOTHING)
transpose.defvjp(lambda g, out, x, axes: transpose(g, axes=tuple(int(i) for i in np.argsort(axes))))


def _concatenate_vjp(position, g, out, *xs, axis):
    start = sum(shape_of(x)[axis] for x in xs[:position])
    stop = start + shape_of(xs[position])[axis]
    return getitem(g, key=(slice(None),) * axis + (slice(start, stop),))


concatenate = Primitive("concatenate", lambda *xs, axis: np.concatenate(xs, axis=axis),
                        reads=READS_NOTHING)
concatenate.defvjp_nary(_concatenate_vjp)

stack = Primitive("stack", lambda *xs, axis: np.stack(xs, axis=axis), reads=READS_NOTHING)
stack.defvjp_nary(
    lambda position, g, out, *xs, axis: getitem(g, key=(slice(None),) * axis + (position,)))


def _getitem(x, *arrays, key):
    return x[build_key(key, arrays)]


def _scatter_add(g, *arrays, key, shape):
    out = np.zeros(shape, dtype=np.result_type(g))
    index = build_key(key, arrays)
    if is_basic(key):
        out[index] = g
    else:
        np.add.at(out, index, g)
    return out


getitem = Primitive("getitem", _getitem, reads=READS_NOTHING)
getitem.defvjp(
    lambda g, out, x, *arrays, key: scatter_add(g, *arrays, key=key, shape=shape_of(x)))
scatter_add = Primitive("scatter_add", _scatter_add, reads=READS_NOTHING)
scatter_add.defvjp(lambda g, out, x, *arrays, key, shape: getitem(g, *arrays, key=key))


def _cast_vjp(g, out, x, dtype):
    source = dtype_of(x)
    return cast(g, dtype=source) if is_trainable(source) else None


cast = Primitive("cast", lambda x, dtype: np.asarray(x).astype(dtype), reads=READS_NOTHING)
cast.defvjp(_cast_vjp)
