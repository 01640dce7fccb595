"""How numpy's API on tensors maps to ``ir`` primitives: joins, splits and selections
beyond the core set (compress, choose, dstack, array_split, select, ...).

They compose other numpy functions on tensors or read operands as only the
tracer does (lists holding tensors, tensor values); np.take_along_axis, which
applies one gather, is bound beside it in ``ir.primitives.gathers``.
"""

import numpy as np

from ir.bindings import along_axis, array_rank, array_shape, no_extras
from ir.primitives.shape import IndexArg, indexed, key_along
from ir.sizes.shape_rules import broadcast_shapes
from tracer.core import as_operand, value_of
from tracer.numpy.common import at_least, at_least_all, split


def _compress(condition, a, axis=None, out=None):
    """np.compress: ``a`` at the nonzero positions of ``condition``, which are recorded when
    ``condition`` is, so that generated code finds them again."""
    no_extras("compress", out=out)
    condition = as_operand(condition)
    if array_rank(condition) != 1:
        raise ValueError("condition must be a 1-d array")
    a, axis = along_axis(as_operand(a), axis)
    return indexed(a, key_along(axis, IndexArg(0)), np.flatnonzero(condition))


def _choose(a, choices, out=None, mode="raise"):
    """np.choose: the choices broadcast together and stacked, then taken along the stack
    at the positions ``a`` gives, so the gradient reaches the chosen elements."""
    no_extras("choose", out=out)
    a, choices = as_operand(a), [as_operand(c) for c in choices]
    if np.asarray(value_of(a)).dtype.kind not in "iu":
        raise TypeError("np.choose: the positions `a` must be integers")
    if mode == "wrap":
        a = np.mod(a, len(choices))
    elif mode == "clip":
        a = np.clip(a, 0, len(choices) - 1)
    elif mode != "raise":
        raise ValueError(f"np.choose: mode must be 'raise', 'wrap' or 'clip', not {mode!r}")
    elif np.any((value_of(a) < 0) | (value_of(a) >= len(choices))):
        raise ValueError("invalid entry in choice array")
    shape = broadcast_shapes(array_shape(a), *(array_shape(c) for c in choices))
    stacked = np.stack([np.broadcast_to(c, shape) for c in choices])
    positions = np.reshape(np.broadcast_to(a, shape), (1,) + shape)
    return np.reshape(np.take_along_axis(stacked, positions, axis=0), shape)


def _column_stack(tup):
    columns = [np.reshape(a, (-1, 1)) if array_rank(a) < 2 else a for a in tup]
    return np.concatenate(columns, axis=1)


def _dstack(tup):
    return np.concatenate([at_least(a, 3) for a in tup], axis=2)


def _array_split(ary, indices_or_sections, axis=0):
    return split(ary, indices_or_sections, axis, equal=False)


def _split_along(name, axis_of, least):
    def split(ary, indices_or_sections):
        ndim = array_rank(ary)
        if ndim < least:
            raise ValueError(f"{name} only works on arrays of {least} or more dimensions")
        return np.split(ary, indices_or_sections, axis=axis_of(ndim))
    return split


def _append(arr, values, axis=None):
    arr, values = as_operand(arr), as_operand(values)
    if axis is None:
        arr = np.ravel(arr) if array_rank(arr) != 1 else arr
        return np.concatenate([arr, np.ravel(values)], axis=0)
    return np.concatenate([arr, values], axis=axis)


def _select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not choicelist:
        raise ValueError("select with an empty condition list is not possible")
    for i, cond in enumerate(condlist):
        if np.asarray(value_of(cond)).dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    # numpy picks the first condition that holds: nest the wheres from the last one out.
    result = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        result = np.where(cond, choice, result)
    return result


FUNCTIONS = {
    np.compress: _compress, np.choose: _choose,
    np.atleast_2d: at_least_all(2), np.atleast_3d: at_least_all(3),
    np.column_stack: _column_stack, np.dstack: _dstack, np.array_split: _array_split,
    np.hsplit: _split_along("hsplit", lambda ndim: 1 if ndim > 1 else 0, 1),
    np.vsplit: _split_along("vsplit", lambda ndim: 0, 2),
    np.dsplit: _split_along("dsplit", lambda ndim: 2, 3),
    np.append: _append, np.select: _select,
}
