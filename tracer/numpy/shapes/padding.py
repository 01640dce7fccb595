"""How numpy's API on tensors maps to ``ir`` primitives: padding, tiling and repeating.

A tile is a broadcast and a reshape, a repeat a broadcast or an index, and
padding with a traced value a concatenation, so their derivatives of every
order come from those pieces.  np.pad with plain fill values is one ``pad``,
yet stays here with the traced case, reading widths and fills as plain values;
its other modes are slices and joins (``tracer.numpy.shapes.pad_modes``).
"""

import numpy as np

from ir.bindings import along_axis, array_rank, array_shape, one_axis
from ir.primitives import shape as shape_ops
from ir.primitives.shape import IndexArg, indexed, key_along
from tracer.numpy.arguments import plain
from tracer.core import apply, is_traced, tracks_any, value_of
from tracer.numpy.shapes.pad_modes import check_mode, pad_in_mode


def _as_pairs(values, ndim, index=False):
    """One ``(before, after)`` pair per axis, as np.pad reads ``pad_width``,
    ``constant_values`` and its modes' arguments: one value for all, one pair for all, or
    pairs per axis; an ``index`` (widths, lengths) rounded to an integer, never negative."""
    values = np.asarray(values)
    if index:
        values = np.round(values).astype(np.intp)
        if (values < 0).any():
            raise ValueError("np.pad: index can't contain negative values")
    if values.ndim < 3 and (values.size == 1 or (values.size == 2 and values.shape != (2, 1))):
        pair = values.ravel()
        return (tuple(pair[[0, -1]].tolist()),) * ndim
    return tuple(tuple(pair) for pair in np.broadcast_to(values, (ndim, 2)).tolist())


def _pad_widths(pad_width, ndim):
    """numpy's spellings of ``pad_width`` (int, pair, pairs per axis, dict) as pairs per axis."""
    if isinstance(pad_width, dict):
        widths = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            widths[one_axis(axis, ndim)] = (width, width) if np.ndim(width) == 0 else tuple(width)
        pad_width = widths
    widths = np.asarray(plain(pad_width))
    if widths.dtype.kind != "i":
        raise TypeError("np.pad: `pad_width` must be of integral type.")
    return _as_pairs(widths, ndim, index=True)


def _pad(array, pad_width, mode="constant", **kwargs):
    """np.pad: 'constant' is one ``pad`` (or joins, for a traced fill); the other modes
    are built in ``tracer.numpy.shapes.pad_modes``."""
    check_mode(mode, kwargs)
    ndim = array_rank(array)
    widths = _pad_widths(pad_width, ndim)
    if not any(before or after for before, after in widths):
        return array
    if mode != "constant":
        return pad_in_mode(array, widths, mode, kwargs, _as_pairs)
    fill = kwargs.get("constant_values", 0)
    if is_traced(fill) and array_rank(fill) == 0:
        return _pad_with_traced(array, widths, fill)
    if is_traced(fill) and tracks_any((fill,)):
        raise TypeError("np.pad on tracer tensors: a traced constant_values must be a scalar; "
                        "pad with plain numbers per axis, or pad each axis separately")
    fill = np.asarray(value_of(fill))
    fill = fill.item() if fill.ndim == 0 else _as_pairs(fill, ndim)
    return apply(shape_ops.pad, (array,), {"pad_width": widths, "constant_values": fill})


def _pad_with_traced(array, widths, fill):
    """Padding with a traced scalar: the fill broadcast beside ``array``, axis by axis."""
    fill = np.astype(fill, value_of(array).dtype)
    for axis, (before, after) in enumerate(widths):
        parts = []
        for width in (before, after):
            shape = list(array_shape(array))
            shape[axis] = width
            parts.append(np.broadcast_to(fill, tuple(shape)) if width else None)
        array = np.concatenate([p for p in (parts[0], array, parts[1]) if p is not None], axis=axis)
    return array


def _tile(A, reps):
    reps = tuple(int(r) for r in np.atleast_1d(plain(reps)))
    shape = array_shape(A)
    ndim = max(len(reps), len(shape))
    shape = (1,) * (ndim - len(shape)) + tuple(shape)
    reps = (1,) * (ndim - len(reps)) + reps
    # Each axis that repeats gets a new axis before it to broadcast along: the copies
    # are the outer index, as in np.tile.
    spread = sum(((r, d) if r != 1 else (d,) for r, d in zip(reps, shape)), ())
    unit = sum(((1, d) if r != 1 else (d,) for r, d in zip(reps, shape)), ())
    tiled = np.broadcast_to(np.reshape(A, unit), spread)
    return np.reshape(tiled, tuple(r * d for r, d in zip(reps, shape)))


def _repeat(a, repeats, axis=None):
    a, axis = along_axis(a, axis)
    shape = array_shape(a)
    repeats = np.asarray(plain(repeats))
    if repeats.dtype.kind not in "iu":
        raise TypeError("np.repeat: repeats must be integers")
    if (repeats < 0).any():
        raise ValueError("np.repeat: negative dimensions are not allowed")
    if repeats.size == 1:
        count = int(repeats.reshape(()))
        before, after = tuple(shape[:axis + 1]), tuple(shape[axis + 1:])
        spread = np.broadcast_to(np.reshape(a, before + (1,) + after), before + (count,) + after)
        return np.reshape(spread, before[:-1] + (shape[axis] * count,) + after)
    positions = np.repeat(np.arange(shape[axis]), np.broadcast_to(repeats, (shape[axis],)))
    return indexed(a, key_along(axis, IndexArg(0)), positions)


FUNCTIONS = {np.pad: _pad, np.tile: _tile, np.repeat: _repeat}
