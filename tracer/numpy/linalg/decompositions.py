"""numpy's linear algebra functions on tensors that are compositions: ``matrix_power``,
``lstsq`` and ``cond``.

They are written with primitives and numpy calls on tensors, so their
derivatives of every order come from those.  The inverses, solves,
determinants and decompositions that are primitives (``inv``, ``solve``,
``det``, ``slogdet``, ``pinv``, ``cholesky``, ``qr``; ``eigh``, ``eig``, ``svd``
and their one-result forms) are bound to numpy's functions beside their
definitions in ``ir.primitives.linalg_decompositions`` and
``ir.primitives.linalg_spectral``.
"""

import numpy as np

from ir.bindings import array_rank, array_shape
from ir.primitives import linalg_decompositions as dec, linalg_spectral as spectral
from ir.linalg_checks import require_matrices, require_real
from tracer.numpy.arguments import plain
from tracer.core import NO_PARAMS, apply, wrap


def _matrix_power(a, n):
    """Repeated squaring with ``matmul``; ``n < 0`` powers the inverse."""
    require_matrices("matrix_power", a, complex_ok=True)
    n = int(n)
    if n == 0:
        return wrap(np.broadcast_to(np.eye(array_shape(a)[-1], dtype=plain(a).dtype),
                                    array_shape(a)).copy())
    if n < 0:
        a, n = np.linalg.inv(a), -n
    result = None
    while n:
        if n & 1:
            result = a if result is None else np.matmul(result, a)
        n >>= 1
        if n:
            a = np.matmul(a, a)
    return result


def _lstsq(a, b, rcond=None):
    """numpy's least squares, as ``pinv(a) @ b``: the same minimum-norm solution, with
    lstsq's cut-off for small singular values (``max(M, N) * eps``, relative).  Whether
    the residuals are empty is read off the rank's value, unnoted: it decides a shape,
    which a recording fixes anyway."""
    if rcond is not None:
        raise TypeError("np.linalg.lstsq(..., rcond=) on tracer tensors: only numpy's default "
                        "cut-off is supported; call np.linalg.lstsq(a, b)")
    if array_rank(a) != 2 or array_rank(b) not in (1, 2):
        raise np.linalg.LinAlgError(
            f"np.linalg.lstsq needs a matrix a and a vector or matrix b, got shapes "
            f"{tuple(array_shape(a))} and {tuple(array_shape(b))}")
    require_matrices("lstsq", a, square=False)
    require_real("lstsq", b)
    solution = np.matmul(apply(dec.pinv, (a,), {"rtol": None}), b)
    values = apply(spectral.svdvals, (a,), NO_PARAMS)
    rows, cols = array_shape(a)
    rank = _rank(values, max(rows, cols))
    if int(plain(rank)) < cols or rows <= cols:
        residuals = wrap(np.empty((0,), np.result_type(plain(a), plain(b))))
    else:
        residuals = np.sum((b - np.matmul(a, solution)) ** 2, axis=0)
        if array_rank(b) == 1:
            residuals = np.reshape(residuals, (1,))
    return solution, residuals, rank, values


def _rank(values, longer_side):
    """``np.linalg.matrix_rank`` from the singular values (largest first), with its
    cut-off, ``largest * max(M, N) * eps``, written with the sizes so that they may be
    symbolic; as a C int, as lstsq gives it."""
    cutoff = values[..., :1] * np.finfo(values.dtype).eps * longer_side
    return np.sum(values > cutoff, axis=-1).astype(np.intc)


def _cond(x, p=None):
    """The ratio of the extreme singular values (``p`` None, 2 or -2), otherwise
    ``norm(x, p) * norm(inv(x), p)``; a singular matrix raises where numpy gives inf."""
    if 0 in array_shape(x)[-2:]:
        raise np.linalg.LinAlgError("cond is not defined on empty arrays")
    if p is None or p in (2, -2):
        require_matrices("cond", x, square=False)
        values = apply(spectral.svdvals, (x,), NO_PARAMS)
        largest, smallest = values[..., 0], values[..., -1]
        return smallest / largest if p == -2 else largest / smallest
    require_matrices("cond", x)
    return (np.linalg.norm(x, p, axis=(-2, -1))
            * np.linalg.norm(np.linalg.inv(x), p, axis=(-2, -1)))


FUNCTIONS = {
    np.linalg.matrix_power: _matrix_power, np.linalg.lstsq: _lstsq, np.linalg.cond: _cond,
}
