"""``tracer.scipy.linalg``: scipy.linalg's solvers that tapegen differentiates, written
with numpy's (``np.linalg.solve``, ``np.linalg.cholesky``) and the triangles."""

import numpy as np


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False):
    """``x`` with ``a x = b`` (``a.T x = b`` for ``trans`` 1 or ``"T"``), reading only the
    lower or upper triangle of ``a`` (and ones on its diagonal with ``unit_diagonal``)."""
    triangle = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        identity = np.eye(a.shape[-1], like=a) if hasattr(a, "shape") else np.eye(len(a))
        triangle = triangle - triangle * identity + identity
    if trans in (1, "T", 2, "C"):
        triangle = np.swapaxes(triangle, -1, -2)
        if trans in (2, "C"):
            triangle = np.conj(triangle)
    elif trans not in (0, "N"):
        raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    return np.linalg.solve(triangle, b)


def cho_factor(a, lower=False):
    """``(c, lower)``: the Cholesky factor of ``a`` in the triangle ``lower`` says, and
    zeros in the other (where scipy leaves what was there)."""
    factor = np.linalg.cholesky(a)
    return (factor if lower else np.swapaxes(factor, -1, -2)), lower


def cho_solve(c_and_lower, b):
    """``x`` with ``a x = b``, from ``cho_factor(a)``."""
    c, lower = c_and_lower
    factor = np.tril(c) if lower else np.swapaxes(np.triu(c), -1, -2)
    return np.linalg.solve(np.swapaxes(factor, -1, -2), np.linalg.solve(factor, b))
