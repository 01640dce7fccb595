"""How numpy's API on tensors maps to ``ir`` primitives: the core joins, splits, takes and
casts (concatenate, stack, hstack, vstack, split, take, astype, copy, atleast_1d).

The numpy functions that read their arguments into one shape primitive
(reshape, transpose, squeeze, broadcast_to, ...) are bound beside their
primitives in ``ir.primitives``.  These stay here because they compose other
numpy functions or need what only the tracer does: a list holding tensors read
as one operand (``as_operand``), a tensor's values read as plain indices
(``plain``), or a tensor made from a plain operand when numpy dispatches on
another argument (``apply``); np.copy applies no primitive at all.
"""

import numpy as np

from ir.bindings import along_axis, array_rank, no_extras, one_axis
from ir.primitives import shape as shape_ops
from ir.primitives.shape import IndexArg, indexed, key_along
from tracer.numpy.arguments import plain
from tracer.core import apply, as_operand
from tracer.numpy.common import at_least, at_least_all, split


def _concatenate(arrays, axis=0, out=None, dtype=None, casting=None):
    no_extras("concatenate", out=out, dtype=dtype, casting=casting)
    arrays = [as_operand(a) for a in arrays]
    if axis is None:
        arrays = [np.ravel(a) for a in arrays]
        axis = 0
    axis = one_axis(axis, array_rank(arrays[0]))
    return apply(shape_ops.concatenate, tuple(arrays), {"axis": axis})


def _stack(arrays, axis=0, out=None, dtype=None, casting=None):
    no_extras("stack", out=out, dtype=dtype, casting=casting)
    arrays = [as_operand(a) for a in arrays]
    axis = one_axis(axis, array_rank(arrays[0]) + 1)
    return apply(shape_ops.stack, tuple(arrays), {"axis": axis})


def _hstack(tup, dtype=None, casting=None):
    arrays = [at_least(a, 1) for a in tup]
    return _concatenate(arrays, axis=0 if array_rank(arrays[0]) == 1 else 1)


def _vstack(tup, dtype=None, casting=None):
    arrays = [at_least(a, 2) for a in tup]
    return _concatenate(arrays, axis=0)


def _split(ary, indices_or_sections, axis=0):
    return split(ary, indices_or_sections, axis, equal=True)


def _take(a, indices, axis=None, out=None, mode="raise"):
    no_extras("take", out=out)
    if mode != "raise":
        raise TypeError("np.take on tracer tensors supports only mode='raise'")
    indices = np.asarray(plain(indices))
    a, axis = along_axis(a, axis)
    return indexed(a, key_along(axis, IndexArg(0)), indices)


def _astype(x, dtype, /, *, copy=True, device=None):
    """np.astype; numpy dispatches it on ``dtype`` too, and ``apply`` makes a plain ``x``
    cast to a tensor's dtype a tensor, as calling ``cast`` would not."""
    dtype = np.dtype(dtype)
    if plain(x).dtype == dtype:
        return x
    return apply(shape_ops.cast, (x,), {"dtype": dtype})


def _copy(a, order="K", subok=False):
    """A tensor is immutable, so np.copy gives it back as it is."""
    return a


FUNCTIONS = {
    np.concatenate: _concatenate, np.stack: _stack, np.hstack: _hstack, np.vstack: _vstack,
    np.split: _split, np.atleast_1d: at_least_all(1), np.take: _take, np.astype: _astype,
    np.copy: _copy,
}
