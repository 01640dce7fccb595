"""How numpy's API on tensors maps to ``ir`` primitives: the core shape functions (reshape,
transpose, squeeze, broadcast_to, concatenate, stack, split, take, astype, ...).
"""

import numpy as np

from ir.primitives import broadcast
from ir.primitives import shape as shape_ops
from ir.primitives.shape import IndexArg
from ir.bindings import along_axis, array_rank, array_shape, no_extras, normalize_axis, one_axis
from tracer.arguments import plain
from tracer.core import apply, as_operand
from tracer.numpy_common import at_least, at_least_all, split


def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise TypeError("np.reshape on tracer tensors supports only order='C'")
    shape = newshape if shape is None else shape
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    target = np.empty(array_shape(a), dtype=np.bool_).reshape(shape).shape if -1 in shape else shape
    if tuple(target) == tuple(array_shape(a)):
        return a
    return apply(shape_ops.reshape, (a,), {"shape": tuple(target)})


def _ravel(a, order="C"):
    return _reshape(a, (-1,), order)


def _transpose(a, axes=None):
    rank = array_rank(a)
    axes = (tuple(reversed(range(rank))) if axes is None
            else tuple(one_axis(i, rank) for i in axes))
    if sorted(axes) != list(range(rank)):
        raise ValueError(f"np.transpose: axes {axes} don't match an array of rank {rank}")
    if axes == tuple(range(rank)):
        return a
    return apply(shape_ops.transpose, (a,), {"axes": axes})


def _swapaxes(a, axis1, axis2):
    rank = array_rank(a)
    axes = list(range(rank))
    i, j = one_axis(axis1, rank), one_axis(axis2, rank)
    axes[i], axes[j] = axes[j], axes[i]
    return _transpose(a, axes)


def _moveaxis(a, source, destination):
    rank = array_rank(a)
    source = [one_axis(s, rank) for s in np.atleast_1d(source)]
    destination = [one_axis(d, rank) for d in np.atleast_1d(destination)]
    order = [n for n in range(rank) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return _transpose(a, order)


def _expand_dims(a, axis):
    shape = list(array_shape(a))
    axes = normalize_axis(axis, len(shape) + (1 if isinstance(axis, (int, np.integer)) else len(axis)))
    for ax in axes:
        shape.insert(ax, 1)
    return _reshape(a, shape)


def _squeeze(a, axis=None):
    shape = array_shape(a)
    axes = normalize_axis(axis, len(shape))
    if axes is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    for ax in axes:
        if shape[ax] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return _reshape(a, [d for i, d in enumerate(shape) if i not in axes])


def _broadcast_to(array, shape, subok=False):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if tuple(array_shape(array)) == shape:
        return array
    np.broadcast_shapes(array_shape(array), shape)
    return apply(broadcast.broadcast_to, (array,), {"shape": shape})


def _concatenate(arrays, axis=0, out=None, dtype=None, casting=None):
    no_extras("concatenate", out=out, dtype=dtype, casting=casting)
    arrays = [as_operand(a) for a in arrays]
    if axis is None:
        arrays = [_ravel(a) for a in arrays]
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
    return apply(shape_ops.getitem, (a, indices), {"key": (slice(None),) * axis + (IndexArg(0),)})


def _astype(x, dtype, /, *, copy=True, device=None):
    dtype = np.dtype(dtype)
    if plain(x).dtype == dtype:
        return x
    return apply(shape_ops.cast, (x,), {"dtype": dtype})


def _copy(a, order="K", subok=False):
    return a


FUNCTIONS = {
    np.reshape: _reshape, np.ravel: _ravel, np.transpose: _transpose,
    np.swapaxes: _swapaxes, np.moveaxis: _moveaxis, np.expand_dims: _expand_dims,
    np.squeeze: _squeeze, np.broadcast_to: _broadcast_to, np.concatenate: _concatenate,
    np.stack: _stack, np.hstack: _hstack, np.vstack: _vstack, np.split: _split,
    np.atleast_1d: at_least_all(1), np.take: _take, np.astype: _astype, np.copy: _copy,
}
