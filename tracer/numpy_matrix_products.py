"""How numpy's API on tensors maps to ``ir`` primitives: products beyond matmul
(``inner``, ``kron``, ``cross``, ``multi_dot``), diagonals and triangles (``trace``,
``diag``, ``diagonal``, ``triu``, ``tril``), and numpy 2's array-API spellings of
them in ``np.linalg``.
"""

import warnings

import numpy as np

from ir.primitives import linalg
from ir.bindings import array_rank, array_shape, no_extras, one_axis
from tracer.core import apply
from tracer.numpy_linalg_checks import require_real


def _inner(a, b):
    if array_rank(a) == 0 or array_rank(b) == 0:
        return a * b
    axes = ((array_rank(a) - 1,), (array_rank(b) - 1,))
    return apply(linalg.tensordot, (a, b), {"axes": axes})


def _kron(a, b):
    """Every product ``a[i] * b[j]`` with their axes interleaved, then merged pairwise."""
    a_shape, b_shape = array_shape(a), array_shape(b)
    rank = max(len(a_shape), len(b_shape))
    a_shape = (1,) * (rank - len(a_shape)) + tuple(a_shape)
    b_shape = (1,) * (rank - len(b_shape)) + tuple(b_shape)
    a_spread = np.reshape(a, [d for n in a_shape for d in (n, 1)])
    b_spread = np.reshape(b, [d for n in b_shape for d in (1, n)])
    return np.reshape(a_spread * b_spread, [m * n for m, n in zip(a_shape, b_shape)])


def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    a = np.moveaxis(a, axisa, -1)
    b = np.moveaxis(b, axisb, -1)
    sizes = (array_shape(a)[-1], array_shape(b)[-1])
    if any(n not in (2, 3) for n in sizes):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2] if sizes[0] == 3 else 0.0
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2] if sizes[1] == 3 else 0.0
    if 2 in sizes:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=3)
    z = a0 * b1 - a1 * b0
    if sizes == (2, 2):
        return z
    parts = [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z]
    shape = np.broadcast_shapes(*(array_shape(p) for p in parts))
    c = np.stack([np.broadcast_to(p, shape) for p in parts], axis=-1)
    return np.moveaxis(c, -1, axisc)


def _diagonal(a, offset=0, axis1=0, axis2=1):
    rank = array_rank(a)
    axis1, axis2 = one_axis(axis1, rank), one_axis(axis2, rank)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return apply(linalg.diagonal, (a,), {"offset": int(offset), "axis1": axis1, "axis2": axis2})


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    no_extras("trace", dtype=dtype, out=out)
    return np.sum(_diagonal(a, offset, axis1, axis2), axis=-1)


def _diag(v, k=0):
    shape = array_shape(v)
    if len(shape) == 2:
        return _diagonal(v, k, 0, 1)
    if len(shape) != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = shape[0] + abs(int(k))
    return apply(linalg.embed_diagonal, (v,),
                 {"shape": (n, n), "offset": int(k), "axis1": 0, "axis2": 1})


def _triangle(prim):
    def mask(m, k=0):
        shape = array_shape(m)
        if len(shape) == 1:
            m = np.broadcast_to(m, (shape[0], shape[0]))
        return apply(prim, (m,), {"k": int(k)})
    return mask


def _linalg_trace(x, /, *, offset=0, dtype=None):
    return _trace(x, offset, -2, -1, dtype)


def _linalg_diagonal(x, /, *, offset=0):
    return _diagonal(x, offset, -2, -1)


def _linalg_outer(x1, x2, /):
    if array_rank(x1) != 1 or array_rank(x2) != 1:
        raise ValueError("np.linalg.outer takes 1-dimensional arrays; use np.outer or "
                         "np.multiply.outer for others")
    return np.outer(x1, x2)


def _linalg_cross(x1, x2, /, *, axis=-1):
    if array_shape(x1)[axis] != 3 or array_shape(x2)[axis] != 3:
        raise ValueError("np.linalg.cross takes 3-dimensional vectors; use np.cross for "
                         "2-dimensional ones")
    return _cross(x1, x2, axis=axis)


def _vecdot(x1, x2, /, *, axis=-1):
    require_real("vecdot", x1, x2)
    return np.sum(x1 * x2, axis=axis)


def _multi_dot(arrays, *, out=None):
    """Products from left to right (numpy may choose another order: rounding can differ)."""
    no_extras("linalg.multi_dot", out=out)
    arrays = list(arrays)
    first, last = array_rank(arrays[0]) == 1, array_rank(arrays[-1]) == 1
    if first:
        arrays[0] = np.reshape(arrays[0], (1, -1))
    if last:
        arrays[-1] = np.reshape(arrays[-1], (-1, 1))
    result = arrays[0]
    for a in arrays[1:]:
        result = np.matmul(result, a)
    if first or last:
        shape = array_shape(result)
        return np.reshape(result, shape[1 if first else 0:len(shape) - (1 if last else 0)])
    return result


FUNCTIONS = {
    np.inner: _inner, np.kron: _kron, np.cross: _cross,
    np.trace: _trace, np.diag: _diag, np.diagonal: _diagonal,
    np.triu: _triangle(linalg.triu), np.tril: _triangle(linalg.tril),
    np.linalg.trace: _linalg_trace, np.linalg.diagonal: _linalg_diagonal,
    np.linalg.outer: _linalg_outer, np.linalg.cross: _linalg_cross,
    np.linalg.matmul: lambda x1, x2, /: np.matmul(x1, x2),
    np.linalg.tensordot: lambda x1, x2, /, *, axes=2: np.tensordot(x1, x2, axes=axes),
    np.linalg.vecdot: _vecdot, np.linalg.multi_dot: _multi_dot,
}
