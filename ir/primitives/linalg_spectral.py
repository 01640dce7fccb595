"""Eigendecompositions (``eigh``, ``eig``) and the singular value decomposition of
(stacks of) matrices.

They are apart from ``linalg_decompositions`` because their rules share one
convention, for values that coincide, and because together with numpy's
bindings they would make that module too long to read.  As there, each
result is a primitive, spelled as the numpy call and the index of its result,
or as numpy's function for that result alone:

    eigh     ->  eigvalsh, eigh_vectors
    eig      ->  eig_values, eig_vectors    (always complex)
    svd      ->  svdvals, svd_u, svd_vh     (thin: full_matrices=False)

and numpy's function, bound beside them, returns a named tuple of them with
numpy's field names (``w, v = np.linalg.eigh(a)``).

Complex matrices: every rule here gives TensorFlow's cotangent for complex
values (``AS_WRITTEN``).  For Hermitian ``eigh`` and for ``svd`` that is the
real rule with each transpose an adjoint (conjugate transpose), plus, for
``svd``, the term of the phases its singular vectors share (TensorFlow's).

Conventions where the derivative is not defined:

- ``eigh`` reads one triangle of its input (``UPLO``) and the real part of
  its diagonal; its rules give the derivative of what numpy computes, which is
  TensorFlow's gradient: ``tril(S + S^H)`` with the diagonal taken once
  (``triu`` for ``UPLO="U"``), ``S`` the gradient for Hermitian
  perturbations (``one_triangle``, shared with ``cholesky``).
- Where eigenvalues (``eigh``, ``eig``) or singular values (``svd``) coincide, the
  eigen/singular vectors are not unique and have no derivative.  The terms
  ``1 / (w_j - w_i)`` of equal pairs are taken as 0 rather than inf, as
  TensorFlow does: gradients stay finite, and they are exact for functions
  of the eigen/singular values alone, but for a function of the vectors
  (``v @ diag(f(w)) @ v.T`` at ``w_i == w_j``) they miss the limit those
  terms have.  Gradients are exact wherever the values are distinct.  (The
  eigenvalues of a non-symmetric matrix, too, may have no derivative where
  they repeat.)
- Zero singular values: ``1 / s`` in the vectors' rules is taken as 0.
- Complex eigen/singular vectors have arbitrary phases: only functions that do
  not depend on them (``abs(v)``, ``u @ diag(c) @ vh``) have a gradient, and the
  rules give it.
"""

import collections

import numpy as np

from ir.bindings import LINEAR_ALGEBRA, array_shape, binds
from ir.primitive import AS_WRITTEN, READS_X, is_complex, not_in_the_standard
from ir.primitives.elementwise import conj, imag, real
from ir.primitives.linalg import as_column, as_row, diagonal, safe_divide, swap_last
from ir.linalg_checks import require_matrices
from ir.primitives.linalg_decompositions import adjoint, matrix_primitive, one_triangle, solve
from ir.sizes.shape_rules import eigenvalues, square_matrices, thin_factor


def _inverse_gaps(values):
    """``1 / (values_j - values_i)`` at ``[..., i, j]``, and 0 where they are equal."""
    return safe_divide(1.0, as_row(values) - as_column(values))


def _inverse_square_gaps(s):
    """``1 / (s_j**2 - s_i**2)`` at ``[..., i, j]``, and 0 where ``s_j == s_i``: written
    ``(s_j - s_i) (s_j + s_i)``, whose zeros stay exact where a compiler fuses products
    into subtractions (``s * s - s * s`` under ``jax.jit`` is not always 0)."""
    row, column = as_row(s), as_column(s)
    return safe_divide(1.0, (row - column) * (row + column))


# --- symmetric eigendecomposition -------------------------------------------------
# ``UPLO`` ("L", the default, or "U") is a param: LAPACK gives other eigenvectors from
# the upper triangle than from the lower one of the same matrix, and numpy's are the
# results.

def _eigvalsh_vjp(g, out, a, UPLO="L"):
    v = eigh_vectors(a, UPLO=UPLO)
    return one_triangle((v * as_row(g)) @ adjoint(v), lower=UPLO == "L")


def _eigh_vectors_vjp(g, out, a, UPLO="L"):
    v = out
    gaps = _inverse_gaps(eigvalsh(a, UPLO=UPLO))
    return one_triangle(v @ (gaps * (adjoint(v) @ g)) @ adjoint(v), lower=UPLO == "L")


def _spell_eigh(function, result=""):
    """numpy's ``function`` of the lower triangle, or with ``UPLO='U'``."""
    def spell(params, shapes):
        upper = ", UPLO='U'" if params.get("UPLO", "L") == "U" else ""
        return f"np.linalg.{function}({{0}}{upper}){result}"
    spell.defaults = {"UPLO": "L"}  # (listings leave it out too)
    return spell


def _lower_triangle_only(function):
    """The standard's ``function`` takes no ``UPLO``: which triangle it reads is the
    library's, so the upper one is refused (the lower follows from numpy's spelling)."""
    def spell(params, shapes):
        if params.get("UPLO", "L") == "U":
            raise not_in_the_standard(f"np.linalg.{function}(UPLO='U')", (
                "the standard's eigh and eigvalsh take no UPLO, and leave which triangle "
                "they read to the library"))
        return None
    return spell


eigvalsh = matrix_primitive("eigvalsh", lambda a, UPLO="L": np.linalg.eigvalsh(a, UPLO=UPLO),
                            _spell_eigh("eigvalsh"), READS_X, eigenvalues,
                            array_api=_lower_triangle_only("eigvalsh"),
                            complex_rules=AS_WRITTEN, vjps=(_eigvalsh_vjp,))
eigh_vectors = matrix_primitive("eigh_vectors",
                                lambda a, UPLO="L": np.linalg.eigh(a, UPLO=UPLO)[1],
                                _spell_eigh("eigh", "[1]"), {0: (0, "out")}, square_matrices,
                                array_api=_lower_triangle_only("eigh"),
                                complex_rules=AS_WRITTEN, vjps=(_eigh_vectors_vjp,))


EighResult = collections.namedtuple("EighResult", "eigenvalues eigenvectors")


def _triangle(name, a, UPLO):
    """numpy's ``UPLO``, checked, as "L" or "U"."""
    if UPLO not in ("L", "U", "l", "u"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    require_matrices(name, a, complex_ok=True)
    return UPLO.upper()


@binds(np.linalg.eigh, topic=LINEAR_ALGEBRA)
def _eigh(a, UPLO="L"):
    UPLO = _triangle("eigh", a, UPLO)
    return EighResult(eigvalsh(a, UPLO=UPLO), eigh_vectors(a, UPLO=UPLO))


@binds(np.linalg.eigvalsh, topic=LINEAR_ALGEBRA)
def _eigvalsh(a, UPLO="L"):
    return eigvalsh(a, UPLO=_triangle("eigvalsh", a, UPLO))


# --- singular value decomposition --------------------------------------------------
# Townsend (2016), for the thin decomposition a = u @ diag(s) @ vh:
#   grad a = u [(F o (u^T gu - gu^T u)) S + diag(gs) + S (F o (v^T gv - gv^T v))] vh
#            + (I - u u^T) gu S^-1 vh + u S^-1 gv^T (I - v v^T),
# F[i, j] = 1 / (s_j^2 - s_i^2) (``_inverse_square_gaps``); each primitive's rule is
# its own terms.  For complex matrices each transpose is an adjoint, and vh's rule adds
# the phase term -i u diag(Im(v^H gv) / s) vh (Wan and Zhang 2019; TensorFlow's).

def _svdvals_vjp(g, out, a):
    return (svd_u(a) * as_row(g)) @ svd_vh(a)


def _svd_u_vjp(g, out, a):
    u, s, vh = out, svdvals(a), svd_vh(a)
    m = adjoint(u) @ g
    rotation = (_inverse_square_gaps(s) * (m - adjoint(m))) * as_row(s)
    residual = (g - u @ m) * as_row(safe_divide(1.0, s))
    return (u @ rotation + residual) @ vh


def _svd_vh_vjp(g, out, a):
    u, s, vh = svd_u(a), svdvals(a), out
    m = vh @ adjoint(g)
    rotation = as_column(s) * (_inverse_square_gaps(s) * (m - adjoint(m)))
    residual = as_column(safe_divide(1.0, s)) * (g - (g @ adjoint(vh)) @ vh)
    if is_complex(m):
        phases = imag(diagonal(m, offset=0, axis1=-2, axis2=-1)) * safe_divide(1.0, s)
        residual = residual - 1j * (as_column(phases) * vh)
    return u @ (rotation @ vh + residual)


svdvals = matrix_primitive("svdvals", lambda a: np.linalg.svd(a, compute_uv=False),
                           "np.linalg.svd({0}, compute_uv=False)", READS_X,
                           thin_factor("values"), array_api="xp.linalg.svdvals({0})",
                           complex_rules=AS_WRITTEN,
                           vjps=(_svdvals_vjp,))
svd_u = matrix_primitive("svd_u", lambda a: np.linalg.svd(a, full_matrices=False)[0],
                         "np.linalg.svd({0}, full_matrices=False)[0]", {0: (0, "out")},
                         thin_factor("left"), complex_rules=AS_WRITTEN, vjps=(_svd_u_vjp,))
svd_vh = matrix_primitive("svd_vh", lambda a: np.linalg.svd(a, full_matrices=False)[2],
                          "np.linalg.svd({0}, full_matrices=False)[2]", {0: (0, "out")},
                          thin_factor("right"), complex_rules=AS_WRITTEN, vjps=(_svd_vh_vjp,))


SVDResult = collections.namedtuple("SVDResult", "U S Vh")


@binds(np.linalg.svd, topic=LINEAR_ALGEBRA)
def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    require_matrices("svd", a, square=False, complex_ok=True)
    if hermitian:
        raise TypeError("np.linalg.svd(..., hermitian=True) on tracer tensors is not "
                        "supported; call it with hermitian=False (or use np.linalg.eigh)")
    if not compute_uv:
        return svdvals(a)
    rows, cols = array_shape(a)[-2:]
    if full_matrices and rows != cols:
        raise TypeError(
            "np.linalg.svd(a) of a non-square matrix on tracer tensors: the extra singular "
            "vectors of full_matrices=True have no derivative; pass full_matrices=False")
    return SVDResult(svd_u(a), svdvals(a), svd_vh(a))


@binds(np.linalg.svdvals, topic=LINEAR_ALGEBRA)
def _svdvals(x, /):
    return _svd(x, compute_uv=False)


# --- general eigendecomposition ---------------------------------------------------
# a v = v diag(w) with unit columns of v, always complex (numpy's eig returns
# real arrays when every eigenvalue is real: a type that depends on values).
# TensorFlow's rule (Boeddeker et al. 2017, eq. 4.77), written for complex
# cotangents in TensorFlow's convention:
#   grad a = v^-H (diag(gw) + conj(F) o (v^H gv - v^H v Re(diag(v^H gv)))) v^H,
# F[i, j] = 1 / (w_j - w_i), 0 where equal (as for eigh).  v's phases are
# arbitrary: only functions that do not depend on them have a gradient.

def _eig_values_vjp(g, out, a):
    vh = conj(swap_last(eig_vectors(a)))
    return solve(vh, as_column(g) * vh)


def _eig_vectors_vjp(g, out, a):
    vh = conj(swap_last(out))
    product = vh @ g
    lengths = real(diagonal(product, offset=0, axis1=-2, axis2=-1))
    middle = conj(_inverse_gaps(eig_values(a))) * (product - (vh @ out) * as_row(lengths))
    return solve(vh, middle @ vh)


def _eig_result(k):
    return lambda a: np.linalg.eig(a)[k] + 0j


eig_values = matrix_primitive("eig_values", _eig_result(0), "np.linalg.eig({0})[0] + 0j",
                              READS_X, eigenvalues, complex_rules=AS_WRITTEN,
                              vjps=(_eig_values_vjp,))
eig_vectors = matrix_primitive("eig_vectors", _eig_result(1), "np.linalg.eig({0})[1] + 0j",
                               {0: (0, "out")}, square_matrices, complex_rules=AS_WRITTEN,
                               vjps=(_eig_vectors_vjp,))


EigResult = collections.namedtuple("EigResult", "eigenvalues eigenvectors")


@binds(np.linalg.eig, topic=LINEAR_ALGEBRA)
def _eig(a):
    """Always complex results: numpy's are real when every eigenvalue is, a type
    that would depend on the values."""
    require_matrices("eig", a, complex_ok=True)
    return EigResult(eig_values(a), eig_vectors(a))


@binds(np.linalg.eigvals, topic=LINEAR_ALGEBRA)
def _eigvals(a):
    require_matrices("eigvals", a, complex_ok=True)
    return eig_values(a)
