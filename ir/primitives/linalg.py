"""Products: ``matmul`` (with numpy's 1-D and batch rules) and ``tensordot``.

Adjoints are transposed products; batch dimensions that were broadcast are
summed back with ``unbroadcast``.  Rules use ``swapaxes`` on the last two
axes, never ``.T``, so they hold for stacked matrices.
"""

import numpy as np

from ir.primitive import READS_OTHER, Primitive, call, shape_of
from ir.primitives.broadcast import unbroadcast
from ir.primitives.shape import reshape, transpose


def swap_last(x):
    """``swapaxes(x, -1, -2)`` as a transpose with an explicit permutation."""
    rank = len(shape_of(x))
    axes = tuple(range(rank - 2)) + (rank - 1, rank - 2)
    return transpose(x, axes=axes)


def _as_column(v):
    return reshape(v, shape=shape_of(v) + (1,))


def _as_row(v):
    shape = shape_of(v)
    return reshape(v, shape=shape[:-1] + (1,) + shape[-1:])


def _matmul_vjp_x(g, out, x, y):
    if len(shape_of(y)) == 1:
        # (..., n) @ (n,) -> (...): each x row meets the same y.
        return unbroadcast(_as_column(g) * y, x)
    if len(shape_of(x)) == 1:
        # (n,) @ (..., n, m) -> (..., m)
        if len(shape_of(y)) == 2:
            return matmul(y, g)
        product = matmul(y, _as_column(g))
        return unbroadcast(reshape(product, shape=shape_of(product)[:-1]), x)
    return unbroadcast(matmul(g, swap_last(y)), x)


def _matmul_vjp_y(g, out, x, y):
    if len(shape_of(x)) == 1:
        if len(shape_of(y)) == 1:
            return g * x
        # (n,) @ (..., n, m) -> (..., m)
        if len(shape_of(y)) == 2:
            return _as_column(x) * g
        return unbroadcast(_as_column(x) * _as_row(g), y)
    if len(shape_of(y)) == 1:
        # (..., n) @ (n,) -> (...)
        if len(shape_of(x)) == 2:
            return matmul(g, x)
        return unbroadcast(x * _as_column(g), y)
    return unbroadcast(matmul(swap_last(x), g), y)


matmul = Primitive("matmul", np.matmul, reads=READS_OTHER, source="{0} @ {1}")
matmul.defvjp(_matmul_vjp_x, _matmul_vjp_y)


def _free_axes(rank, contracted):
    return [i for i in range(rank) if i not in contracted]


def _tensordot_vjp_a(g, out, a, b, axes):
    a_axes, b_axes = axes
    a_rank, b_rank = len(shape_of(a)), len(shape_of(b))
    n_free_a = a_rank - len(a_axes)
    g_b_free = tuple(range(n_free_a, len(shape_of(g))))
    partial = tensordot(g, b, axes=(g_b_free, tuple(_free_axes(b_rank, b_axes))))
    # partial's axes: a's free axes, then a's contracted axes in the order of sorted(b_axes).
    order = _free_axes(a_rank, a_axes) + [a_axes[b_axes.index(j)] for j in sorted(b_axes)]
    return _reorder(partial, order)


def _tensordot_vjp_b(g, out, a, b, axes):
    a_axes, b_axes = axes
    a_rank, b_rank = len(shape_of(a)), len(shape_of(b))
    n_free_a = a_rank - len(a_axes)
    partial = tensordot(a, g, axes=(tuple(_free_axes(a_rank, a_axes)), tuple(range(n_free_a))))
    # partial's axes: b's contracted axes in the order of sorted(a_axes), then b's free axes.
    order = [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + _free_axes(b_rank, b_axes)
    return _reorder(partial, order)


def _reorder(value, order):
    """Transpose ``value`` whose axis k is the original axis ``order[k]``."""
    axes = tuple(int(i) for i in np.argsort(order))
    if axes == tuple(range(len(axes))):
        return value
    return transpose(value, axes=axes)


tensordot = Primitive("tensordot", lambda a, b, axes: np.tensordot(a, b, axes=axes),
                      reads=READS_OTHER, source=call("np.tensordot", axes=None))
tensordot.defvjp(_tensordot_vjp_a, _tensordot_vjp_b)
