"""How numpy's API on tensors maps to ``ir`` primitives: vector and matrix norms
(``np.linalg.norm``, ``matrix_norm``, ``vector_norm``), for real and complex values.

The 2-norm and Frobenius norm are a primitive; the others are sums, maxima
and singular values of tensors, so their derivatives come from those.  Each
norm function chooses among such compositions by its ``ord``, so all of them
stay here rather than beside the ``norm`` primitive in ``ir``.
"""

import numpy as np

from ir.bindings import array_rank, array_shape, normalize_axis, one_axis
from ir.primitives import linalg, linalg_spectral
from ir.primitives.reductions import kept_shape
from ir.sizes.traced import product
from tracer.numpy.arguments import plain
from tracer.core import NO_PARAMS, apply


def _norm(x, ord=None, axis=None, keepdims=False):
    rank = array_rank(x)
    if axis is None:
        if ord is None:
            return apply(linalg.norm, (x,), {"axis": None, "keepdims": bool(keepdims)})
        if rank not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(rank))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(one_axis(a, rank) for a in axes)
    if len(axes) == 1:
        result = _vector_norm(x, ord, axes[0])
    elif len(axes) == 2 and axes[0] != axes[1]:
        result = _matrix_norm(x, ord, axes)
    else:
        raise ValueError("Improper number of dimensions to norm.")
    if keepdims:
        return np.reshape(result, kept_shape(array_shape(x), axes))
    return result


def _vector_norm(x, ord, axis):
    """numpy's vector norms.  At zero they have no derivative; orders 1, 2, inf and
    p > 1 give gradient 0 there (a subgradient), and order 2 also a zero second
    derivative.  Other orders' second derivatives there, and for p < 1 the
    derivative at any zero element, are infinite (nan or inf)."""
    if ord is None or ord == 2:
        return apply(linalg.norm, (x,), {"axis": (axis,), "keepdims": False})
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:
        return _largest(np.abs(x), axis)
    if ord == -np.inf:
        return np.min(np.abs(x), axis=axis)
    if ord == 0:
        return np.sum((x != 0).astype(np.real(plain(x)).dtype), axis=axis)
    if ord == 1:
        return np.sum(np.abs(x), axis=axis)
    total = np.sum(np.abs(x) ** ord, axis=axis)
    # The double where keeps the derivative at total == 0 free of inf * 0; there
    # (an empty vector, for ord < 0) the norm is 0 ** (1 / ord).
    zero = total == 0
    limit = 0.0 if ord > 0 else np.inf
    return np.where(zero, limit, np.where(zero, 1.0, total) ** (1.0 / ord))


def _largest(x, axis):
    """``np.max`` along ``axis`` with numpy's ``initial=0`` for norms: over an empty
    axis that is the empty sum, 0, with its gradient of zeros."""
    if array_shape(x)[axis] == 0:
        return np.sum(x, axis=axis)
    return np.max(x, axis=axis)


def _matrix_norm(x, ord, axes):
    row, col = axes
    if ord is None or ord == "fro":
        return apply(linalg.norm, (x,), {"axis": tuple(sorted(axes)), "keepdims": False})
    if ord in (1, -1):
        sums = np.sum(np.abs(x), axis=row)
        reduce = _largest if ord == 1 else np.min
        return reduce(sums, col - 1 if col > row else col)
    if ord in (np.inf, -np.inf):
        sums = np.sum(np.abs(x), axis=col)
        reduce = _largest if ord == np.inf else np.min
        return reduce(sums, row - 1 if row > col else row)
    if ord in ("nuc", 2, -2):
        values = apply(linalg_spectral.svdvals, (np.moveaxis(x, axes, (-2, -1)),), NO_PARAMS)
        if ord == "nuc":
            return np.sum(values, axis=-1)
        if array_shape(values)[-1] == 0:  # as numpy: 0 for ord 2, no smallest value for -2
            return _largest(values, -1) if ord == 2 else np.min(values, axis=-1)
        return values[..., 0] if ord == 2 else values[..., -1]
    raise ValueError("Invalid norm order for matrices.")


def _matrix_norm_api(x, /, *, keepdims=False, ord="fro"):
    return _norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def _vector_norm_api(x, /, *, axis=None, keepdims=False, ord=2):
    """A vector norm over one axis, or over several as one: numpy flattens the axes it is
    given (a matrix norm is ``matrix_norm``'s)."""
    rank = array_rank(x)
    axes = tuple(range(rank)) if axis is None else normalize_axis(axis, rank)
    shape = array_shape(x)
    kept = rank - len(axes)
    together = np.moveaxis(x, axes, tuple(range(kept, rank)))
    size = product(shape[a] for a in axes)
    result = _norm(np.reshape(together, tuple(array_shape(together)[:kept]) + (size,)), ord=ord,
                   axis=-1)
    return np.reshape(result, kept_shape(shape, axes)) if keepdims else result


FUNCTIONS = {
    np.linalg.norm: _norm, np.linalg.matrix_norm: _matrix_norm_api,
    np.linalg.vector_norm: _vector_norm_api,
}
