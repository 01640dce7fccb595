"""How numpy's API on tensors maps to ``ir`` primitives: the products, traces and
array-API spellings in ``np.linalg`` that are compositions of numpy functions on
tensors (``kron``, ``cross``, ``trace``, ``multi_dot``, ``vecdot``, and
``np.linalg``'s ``trace``, ``outer`` and ``cross``).

Diagonals and triangles (``diagonal``, ``diag``, ``triu``, ``tril``,
``np.linalg.diagonal``) and the products that are one primitive (``inner``,
``np.linalg.matmul``, ``np.linalg.tensordot``) are bound beside their
primitives in ``ir.primitives.linalg``.
"""

import warnings

import numpy as np

from ir.bindings import array_rank, array_shape, no_extras
from ir.linalg_checks import require_real
from ir.sizes.shape_rules import broadcast_shapes


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
    shape = broadcast_shapes(*(array_shape(p) for p in parts))
    c = np.stack([np.broadcast_to(p, shape) for p in parts], axis=-1)
    return np.moveaxis(c, -1, axisc)


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    no_extras("trace", dtype=dtype, out=out)
    return np.sum(np.diagonal(a, offset, axis1, axis2), axis=-1)


def _linalg_trace(x, /, *, offset=0, dtype=None):
    return _trace(x, offset, -2, -1, dtype)


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
    np.kron: _kron, np.cross: _cross, np.trace: _trace,
    np.linalg.trace: _linalg_trace, np.linalg.outer: _linalg_outer,
    np.linalg.cross: _linalg_cross, np.linalg.vecdot: _vecdot, np.linalg.multi_dot: _multi_dot,
}
