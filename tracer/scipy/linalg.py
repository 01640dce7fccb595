"""``tracer.scipy.linalg``: scipy.linalg's functions that tapegen differentiates.

The triangular and Cholesky solves are written with numpy's (``np.linalg.solve``,
``np.linalg.cholesky``) and the triangles; the functions of matrices (``expm``,
``logm``, ``sqrtm``), ``solve_sylvester`` and ``solve_banded`` are primitives that
call scipy's (``ir.primitives.matrix_functions``).
"""

import operator

import numpy as np

from ir.bindings import array_rank, array_shape
from ir.primitives import matrix_functions
from tracer.core import as_operand


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False):
    """``x`` with ``a x = b`` (``a.T x = b`` for ``trans`` 1 or ``"T"``), reading only the
    lower or upper triangle of ``a`` (and ones on its diagonal with ``unit_diagonal``)."""
    triangle = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        a = a if hasattr(a, "dtype") else np.asarray(a)
        identity = np.eye(a.shape[-1], dtype=np.result_type(a.dtype, 1.0), like=a)
        triangle = triangle - triangle * identity + identity
    if trans in (1, "T", 2, "C"):
        triangle = np.swapaxes(triangle, -1, -2)
        if trans in (2, "C"):
            triangle = np.conj(triangle)
    elif trans not in (0, "N"):
        raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    return np.linalg.solve(triangle, b)


def cho_factor(a, lower=False):
    """``(c, lower)``: the Cholesky factor of ``a`` in the triangle ``lower`` says, read
    from that triangle of ``a`` as scipy reads it (``a = c c^H`` or ``c^H c``), and zeros
    in the other (where scipy leaves what was there)."""
    return np.linalg.cholesky(a, upper=not lower), lower


def cho_solve(c_and_lower, b):
    """``x`` with ``a x = b``, from ``cho_factor(a)``: two triangular solves, with the
    factor and its adjoint."""
    c, lower = c_and_lower
    factor = np.tril(c) if lower else np.triu(c)
    adjoint = np.conj(np.swapaxes(factor, -1, -2))
    if lower:
        return np.linalg.solve(adjoint, np.linalg.solve(factor, b))
    return np.linalg.solve(factor, np.linalg.solve(adjoint, b))


def expm(A):
    """The matrix exponential of (each matrix of a stack) ``A``; of a number (or one-element
    vector) ``a``, ``[[exp(a)]]`` as scipy's."""
    A = as_operand(A)
    if array_rank(A) < 2 and np.size(A) == 1:
        A = np.reshape(A, (1, 1))
    return matrix_functions.expm(A)


def logm(A):
    """The principal logarithm of (each matrix of a stack) ``A``.  A real matrix with an
    eigenvalue on the negative real axis has no real one: pass it as complex for the
    complex one.  (scipy's deprecated ``disp`` is left out.)"""
    return matrix_functions.logm(as_operand(A))


def sqrtm(A):
    """The principal square root of (each matrix of a stack) ``A``, real for a real matrix
    without eigenvalues on the negative real axis (pass it as complex otherwise).
    (scipy's deprecated ``disp`` and ``blocksize`` are left out.)"""
    if array_rank(A) < 2:
        raise np.linalg.LinAlgError(
            f"sqrtm needs (a stack of) square matrices, got shape {array_shape(A)}; for a "
            "number a pass [[a]] (scipy returns exp(a) for a number, not its root)")
    return matrix_functions.sqrtm(as_operand(A))


def solve_sylvester(a, b, q):
    """``x`` with ``a x + x b = q``; stacks of matrices broadcast.  The three are solved as
    one type: scipy's solution is wrong where a real one, with complex eigenvalues, meets
    a complex one (its real Schur form goes to the complex solver)."""
    a, b, q = (as_operand(x) for x in (a, b, q))
    dtype = np.result_type(a.dtype, b.dtype, q.dtype)
    a, b, q = (x if x.dtype == dtype else x.astype(dtype) for x in (a, b, q))
    return matrix_functions.solve_sylvester(a, b, q)


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """``x`` with ``a x = b`` for the banded ``a`` with ``l`` diagonals below and ``u``
    above its diagonal, held in ``ab`` as ``ab[u + i - j, j] == a[i, j]``.  The inputs
    are never overwritten (a tape may hold them), and always checked to be finite."""
    lower, upper = (operator.index(n) for n in l_and_u)
    return matrix_functions.solve_banded(as_operand(ab), as_operand(b), l_and_u=(lower, upper))
