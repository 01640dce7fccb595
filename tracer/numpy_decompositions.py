"""How numpy's API on tensors maps to ``ir`` primitives: ``np.linalg``'s inverses, solves,
determinants, powers and decompositions.

Functions with a primitive of their own (``ir/primitives/linalg*.py``) apply
it; the others (``matrix_power``, ``lstsq``, ``cond``) are written with
primitives and numpy calls on tensors, so their derivatives of every order
come from those.  Multi-result functions return named tuples with numpy's
field names (``sign, logabsdet = np.linalg.slogdet(a)``), one primitive per
field.  Complex matrices are welcome where the rules hold for them (``inv``,
``solve``, ``det``, ``eig``); the other decompositions refuse them.
"""

import collections

import numpy as np

from ir.primitives import linalg_decompositions as dec
from ir.bindings import array_rank, array_shape
from tracer.arguments import plain
from tracer.core import NO_PARAMS, apply, wrap
from tracer.numpy_linalg_checks import require_matrices, require_real, swap_last

SlogdetResult = collections.namedtuple("SlogdetResult", "sign logabsdet")
EighResult = collections.namedtuple("EighResult", "eigenvalues eigenvectors")
EigResult = collections.namedtuple("EigResult", "eigenvalues eigenvectors")
SVDResult = collections.namedtuple("SVDResult", "U S Vh")
QRResult = collections.namedtuple("QRResult", "Q R")


def _inv(a):
    require_matrices("inv", a, complex_ok=True)
    return apply(dec.inv, (a,), NO_PARAMS)


def _det(a):
    require_matrices("det", a, complex_ok=True)
    return apply(dec.det, (a,), NO_PARAMS)


def _solve(a, b):
    require_matrices("solve", a, complex_ok=True)
    return apply(dec.solve, (a, b), NO_PARAMS)


def _slogdet(a):
    require_matrices("slogdet", a)
    return SlogdetResult(apply(dec.slogdet_sign, (a,), NO_PARAMS),
                         apply(dec.logabsdet, (a,), NO_PARAMS))


def _pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    if rcond is not None or rtol is not np._NoValue or hermitian:
        raise TypeError("np.linalg.pinv(..., rcond=, rtol=, hermitian=) on tracer tensors: "
                        "only numpy's default cut-off is supported; call np.linalg.pinv(a)")
    require_matrices("pinv", a, square=False)
    return apply(dec.pinv, (a,), {"rtol": dec.PINV_RTOL})


def _matrix_power(a, n):
    """Repeated squaring with ``matmul``; ``n < 0`` powers the inverse."""
    require_matrices("matrix_power", a, complex_ok=True)
    n = int(n)
    if n == 0:
        return wrap(np.broadcast_to(np.eye(array_shape(a)[-1], dtype=plain(a).dtype),
                                    array_shape(a)).copy())
    if n < 0:
        a, n = _inv(a), -n
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
    lstsq's cut-off for small singular values (``max(M, N) * eps``, relative)."""
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
    rank = np.linalg.matrix_rank(a).astype(np.intc)  # numpy's lstsq gives a C int
    rows, cols = array_shape(a)
    if int(rank) < cols or rows <= cols:
        residuals = wrap(np.empty((0,), np.result_type(plain(a), plain(b))))
    else:
        residuals = np.sum((b - np.matmul(a, solution)) ** 2, axis=0)
        if array_rank(b) == 1:
            residuals = np.reshape(residuals, (1,))
    return solution, residuals, rank, _svdvals(a)


def _cond(x, p=None):
    """The ratio of the extreme singular values (``p`` None, 2 or -2), otherwise
    ``norm(x, p) * norm(inv(x), p)``; a singular matrix raises where numpy gives inf."""
    if 0 in array_shape(x)[-2:]:
        raise np.linalg.LinAlgError("cond is not defined on empty arrays")
    if p is None or p in (2, -2):
        require_matrices("cond", x, square=False)
        values = _svdvals(x)
        largest, smallest = values[..., 0], values[..., -1]
        return smallest / largest if p == -2 else largest / smallest
    require_matrices("cond", x)
    return np.linalg.norm(x, p, axis=(-2, -1)) * np.linalg.norm(_inv(x), p, axis=(-2, -1))


def _cholesky(a, /, *, upper=False):
    require_matrices("cholesky", a)
    if upper:
        return swap_last(apply(dec.cholesky, (swap_last(a),), NO_PARAMS))
    return apply(dec.cholesky, (a,), NO_PARAMS)


def _lower(name, a, UPLO):
    """eigh reads the lower triangle; the upper one of ``a`` is the lower one of its transpose."""
    if UPLO not in ("L", "U", "l", "u"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    require_matrices(name, a)
    return a if UPLO in ("L", "l") else swap_last(a)


def _eigh(a, UPLO="L"):
    a = _lower("eigh", a, UPLO)
    return EighResult(apply(dec.eigvalsh, (a,), NO_PARAMS),
                      apply(dec.eigh_vectors, (a,), NO_PARAMS))


def _eigvalsh(a, UPLO="L"):
    return apply(dec.eigvalsh, (_lower("eigvalsh", a, UPLO),), NO_PARAMS)


def _eig(a):
    """Always complex results: numpy's are real when every eigenvalue is, a type
    that would depend on the values."""
    require_matrices("eig", a, complex_ok=True)
    return EigResult(apply(dec.eig_values, (a,), NO_PARAMS),
                     apply(dec.eig_vectors, (a,), NO_PARAMS))


def _eigvals(a):
    require_matrices("eigvals", a, complex_ok=True)
    return apply(dec.eig_values, (a,), NO_PARAMS)


def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    require_matrices("svd", a, square=False)
    if hermitian:
        raise TypeError("np.linalg.svd(..., hermitian=True) on tracer tensors is not "
                        "supported; call it with hermitian=False (or use np.linalg.eigh)")
    if not compute_uv:
        return apply(dec.svdvals, (a,), NO_PARAMS)
    rows, cols = array_shape(a)[-2:]
    if full_matrices and rows != cols:
        raise TypeError(
            "np.linalg.svd(a) of a non-square matrix on tracer tensors: the extra singular "
            "vectors of full_matrices=True have no derivative; pass full_matrices=False")
    return SVDResult(apply(dec.svd_u, (a,), NO_PARAMS), apply(dec.svdvals, (a,), NO_PARAMS),
                     apply(dec.svd_vh, (a,), NO_PARAMS))


def _svdvals(x, /):
    return _svd(x, compute_uv=False)


def _qr(a, mode="reduced"):
    require_matrices("qr", a, square=False)
    rows, cols = array_shape(a)[-2:]
    if mode == "r":
        return apply(dec.qr_r, (a,), NO_PARAMS)
    if mode not in ("reduced", "complete") or (mode == "complete" and rows > cols):
        raise TypeError(
            f"np.linalg.qr(a, mode={mode!r}) on tracer tensors is not supported: the extra "
            "columns of a complete Q, and the raw LAPACK output, have no derivative rule; use "
            "mode='reduced' or mode='r'")
    return QRResult(apply(dec.qr_q, (a,), NO_PARAMS), apply(dec.qr_r, (a,), NO_PARAMS))


FUNCTIONS = {
    np.linalg.inv: _inv, np.linalg.solve: _solve, np.linalg.det: _det,
    np.linalg.slogdet: _slogdet, np.linalg.pinv: _pinv, np.linalg.matrix_power: _matrix_power,
    np.linalg.lstsq: _lstsq, np.linalg.cond: _cond,
    np.linalg.cholesky: _cholesky, np.linalg.eigh: _eigh, np.linalg.eigvalsh: _eigvalsh,
    np.linalg.eig: _eig, np.linalg.eigvals: _eigvals,
    np.linalg.svd: _svd, np.linalg.svdvals: _svdvals, np.linalg.qr: _qr,
}
