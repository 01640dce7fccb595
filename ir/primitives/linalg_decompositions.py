"""Inverses, determinants and decompositions of (stacks of) matrices.

The IR's nodes have one output each, so a numpy function with several
results is several primitives, one per result, each spelled as the numpy
call and the index of its result (``np.linalg.eigh(a)[1]``), or as numpy's
function for that result alone (``np.linalg.eigvalsh(a)``):

    slogdet  ->  slogdet_sign (no gradient), logabsdet
    eigh     ->  eigvalsh, eigh_vectors
    eig      ->  eig_values, eig_vectors    (always complex)
    svd      ->  svdvals, svd_u, svd_vh     (thin: full_matrices=False)
    qr       ->  qr_q, qr_r                 (mode='reduced')

A rule that needs a sibling result applies the sibling primitive to the same
input; eagerly that recomputes the decomposition, and in generated code the
optimiser's common-subexpression pass leaves one call per result.  numpy's
LAPACK calls are deterministic, so siblings agree on signs (the gauge).

Complex matrices: ``inv``, ``solve``, ``det`` (and ``cofactors``) are
holomorphic and their rules hold as written; ``eig`` follows TensorFlow's
convention for complex cotangents.  The others' rules are for real matrices
(``REAL_ONLY``), and the tracer refuses complex input to them.

Conventions where the derivative is not defined:

- ``cholesky`` and ``eigh`` read one triangle of their input; their rules
  return the symmetric gradient, as JAX and autograd do (TensorFlow's eigh
  gives the equivalent lower-triangular one).  It is the gradient for any
  symmetric perturbation, the only kind under which these stay meaningful.
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
- ``det`` is differentiable everywhere: its gradient is the cofactor matrix
  ``adj(a).T``, computed from an SVD so that it holds at singular matrices
  too (autograd and TensorFlow use ``det(a) * inv(a).T``, which fails
  there).  Its second derivative uses ``inv`` and so, at an exactly singular
  matrix, raises numpy's ``LinAlgError``.  ``logabsdet`` is -inf there and
  has no derivative.
- ``qr``, ``inv``, ``solve``, ``pinv`` assume full rank (``pinv``: locally
  constant rank) near the point.
"""

import inspect

import numpy as np

from ir.batching import Batched, inner_rank, on_stacks, stack_padded
from ir.primitive import (AS_WRITTEN, HOLOMORPHIC, READS_OUT, READS_X, REAL_ONLY, Primitive,
                          call, dtype_of, shape_of)
from ir.primitives.broadcast import unbroadcast
from ir.primitives.elementwise import conj, negative, real
from ir.primitives.linalg import as_column, as_row, diagonal, safe_divide, swap_last, tril
from ir.primitives.reductions import sum_
from ir.primitives.shape import concatenate, getitem, reshape


def _identities(shape, dtype):
    if len(shape) < 2:
        return np.zeros(shape, dtype)
    return np.broadcast_to(np.eye(*shape[-2:], dtype=dtype), shape)


def _on_identities(impl):
    """An ``abstract`` rule that runs ``impl`` on identity matrices of the inputs' shapes:
    the default, zeros, would be singular."""
    def abstract(avals, params):
        probes = [_identities(*aval) if isinstance(aval, tuple) else aval for aval in avals]
        out = impl(*probes, **params)
        return np.shape(out), np.result_type(out)
    return abstract


def _matrix_primitive(name, impl, source, reads, helpers=None, complex_rules=REAL_ONLY,
                      batch=on_stacks):
    return Primitive(name, impl, reads=reads, source=source, helpers=helpers,
                     complex_rules=complex_rules, abstract=_on_identities(impl), batch=batch)


def _as_matrix_scale(v):
    """``v[..., None, None]``: one number per matrix of a stack, to scale it."""
    return reshape(v, shape=shape_of(v) + (1, 1))


def _symmetric(x):
    return 0.5 * (x + swap_last(x))


def _inverse_gaps(values):
    """``1 / (values_j - values_i)`` at ``[..., i, j]``, and 0 where they are equal."""
    return safe_divide(1.0, as_row(values) - as_column(values))


# --- inverses and solves ------------------------------------------------------

inv = _matrix_primitive("inv", np.linalg.inv, "np.linalg.inv({0})", READS_OUT,
                        complex_rules=HOLOMORPHIC)
inv.defvjp(lambda g, out, a: negative(swap_last(out) @ g @ swap_last(out)))


def _solve_transposed(a, g, vector):
    """``solve(a.T, g)``, with ``g`` a stack of vectors when ``vector``."""
    if vector:
        return reshape(solve(swap_last(a), as_column(g)), shape=shape_of(g))
    return solve(swap_last(a), g)


def _solve_vjp_a(g, out, a, b):
    vector = len(shape_of(b)) == 1
    gb = _solve_transposed(a, g, vector)
    product = as_column(gb) * as_row(out) if vector else gb @ swap_last(out)
    return unbroadcast(negative(product), a)


def _solve_vjp_b(g, out, a, b):
    return unbroadcast(_solve_transposed(a, g, len(shape_of(b)) == 1), b)


def _batch_solve(prim, args, params, size):
    """``solve(a, b)`` with ``b`` made a stack of one-column matrices when it is a vector,
    so numpy cannot mistake a batch of vectors for a matrix."""
    a, b = args
    vector = inner_rank(b) == 1
    b_value = b.value if isinstance(b, Batched) else b
    if vector:
        b_value = reshape(b_value, shape=tuple(shape_of(b_value)) + (1,))
    ranks = inner_rank(a) - 2, inner_rank(b) + vector - 2
    a_value = stack_padded(a, a.value if isinstance(a, Batched) else a, ranks[0], max(ranks))
    b_value = stack_padded(b, b_value, ranks[1], max(ranks))
    result = prim(a_value, b_value)
    if vector:
        result = reshape(result, shape=tuple(shape_of(result))[:-1])
    return Batched(result, size)


# numpy >= 2: ``b`` is a vector (broadcast against the stack) exactly when it is 1-D.
solve = _matrix_primitive("solve", np.linalg.solve, "np.linalg.solve({0}, {1})",
                          {0: (0, "out"), 1: (0,)}, complex_rules=HOLOMORPHIC,
                          batch=_batch_solve)
solve.defvjp(_solve_vjp_a, _solve_vjp_b)


def _pinv_vjp(g, out, a, rtol):
    # The derivative of a pseudo-inverse P of constant rank (Golub and Pereyra):
    # dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P, transposed.
    p, pt, gt = out, swap_last(out), swap_last(g)
    left = gt @ (p @ pt)
    right = (pt @ p) @ gt
    return (left - a @ (p @ left)) + (right - (right @ p) @ a) - pt @ g @ pt


PINV_RTOL = 1e-15
"""numpy's default cut-off of ``pinv``, relative to the largest singular value.
``rtol=None`` is numpy's ``max(M, N) * eps``, the cut-off of ``lstsq``."""
pinv = _matrix_primitive("pinv", lambda a, rtol: np.linalg.pinv(a, rtol=rtol),
                         call("np.linalg.pinv", rtol=PINV_RTOL), {0: (0, "out")})
pinv.defvjp(_pinv_vjp)


# --- determinants ---------------------------------------------------------------

def _cofactors(a):
    """The cofactor matrix ``adj(a).T``: ``det(a) * inv(a).T``, but also at singular
    matrices.  For ``a = u @ diag(s) @ vh`` it is
    ``det(u) * det(vh) * conj(u) @ diag(products of the other s) @ conj(vh)``."""
    u, s, vh = np.linalg.svd(a)
    ones = np.ones(s.shape[:-1] + (1,), s.dtype)
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[..., None, None] * ((np.conj(u) * (before * after)[..., None, :]) @ np.conj(vh))


def _cofactors_vjp(g, out, a):
    # Where a is invertible, d adj(a).T = det(a) (<inv(a).T, da> inv(a).T
    # - inv(a).T da.T inv(a).T); at a singular matrix inv raises.
    inv_t = swap_last(inv(a))
    rank = len(shape_of(a))
    overlap = sum_(g * inv_t, axis=(rank - 2, rank - 1), keepdims=True)
    return _as_matrix_scale(det(a)) * (overlap * inv_t - inv_t @ swap_last(g) @ inv_t)


# det's gradient, which exists at singular matrices too.  Generated code
# defines ``_cofactors`` from this module's own source.
cofactors = _matrix_primitive("cofactors", _cofactors, "_cofactors({0})", READS_X,
                              helpers={"_cofactors": inspect.getsource(_cofactors)},
                              complex_rules=HOLOMORPHIC)
cofactors.defvjp(_cofactors_vjp)

det = _matrix_primitive("det", np.linalg.det, "np.linalg.det({0})", READS_X,
                        complex_rules=HOLOMORPHIC)
det.defvjp(lambda g, out, a: _as_matrix_scale(g) * cofactors(a))


def _slogdet_sign(a):
    return np.linalg.slogdet(a)[0]


slogdet_sign = Primitive("slogdet_sign", _slogdet_sign, no_gradient="is piecewise constant",
                         batch=on_stacks,
                         source="np.linalg.slogdet({0})[0]",
                         abstract=_on_identities(_slogdet_sign))
logabsdet = _matrix_primitive("logabsdet", lambda a: np.linalg.slogdet(a)[1],
                              "np.linalg.slogdet({0})[1]", READS_X)
logabsdet.defvjp(lambda g, out, a: _as_matrix_scale(g) * swap_last(inv(a)))


# --- Cholesky -----------------------------------------------------------------

def _cholesky_vjp(g, out, a):
    # Murray (2016), symmetrised: S = L^-T Phi(L^T G) L^-1, where Phi keeps
    # the lower triangle and halves the diagonal.
    lt = swap_last(out)
    product = lt @ g
    phi = 0.5 * (tril(product, k=0) + tril(product, k=-1))
    left = solve(lt, phi)
    return _symmetric(swap_last(solve(lt, swap_last(left))))


cholesky = _matrix_primitive("cholesky", np.linalg.cholesky, "np.linalg.cholesky({0})",
                             READS_OUT)
cholesky.defvjp(_cholesky_vjp)


# --- symmetric eigendecomposition -------------------------------------------------

def _eigvalsh_vjp(g, out, a):
    v = eigh_vectors(a)
    return (v * as_row(g)) @ swap_last(v)


def _eigh_vectors_vjp(g, out, a):
    v = out
    gaps = _inverse_gaps(eigvalsh(a))
    return _symmetric(v @ (gaps * (swap_last(v) @ g)) @ swap_last(v))


eigvalsh = _matrix_primitive("eigvalsh", np.linalg.eigvalsh, "np.linalg.eigvalsh({0})", READS_X)
eigvalsh.defvjp(_eigvalsh_vjp)
eigh_vectors = _matrix_primitive("eigh_vectors", lambda a: np.linalg.eigh(a)[1],
                                 "np.linalg.eigh({0})[1]", {0: (0, "out")})
eigh_vectors.defvjp(_eigh_vectors_vjp)


# --- singular value decomposition --------------------------------------------------
# Townsend (2016), for the thin decomposition a = u @ diag(s) @ vh:
#   grad a = u [(F o (u^T gu - gu^T u)) S + diag(gs) + S (F o (v^T gv - gv^T v))] vh
#            + (I - u u^T) gu S^-1 vh + u S^-1 gv^T (I - v v^T),
# F[i, j] = 1 / (s_j^2 - s_i^2); each primitive's rule is its own terms.

def _svdvals_vjp(g, out, a):
    return (svd_u(a) * as_row(g)) @ svd_vh(a)


def _svd_u_vjp(g, out, a):
    u, s, vh = out, svdvals(a), svd_vh(a)
    m = swap_last(u) @ g
    rotation = (_inverse_gaps(s * s) * (m - swap_last(m))) * as_row(s)
    residual = (g - u @ m) * as_row(safe_divide(1.0, s))
    return (u @ rotation + residual) @ vh


def _svd_vh_vjp(g, out, a):
    u, s, vh = svd_u(a), svdvals(a), out
    m = vh @ swap_last(g)
    rotation = as_column(s) * (_inverse_gaps(s * s) * (m - swap_last(m)))
    residual = as_column(safe_divide(1.0, s)) * (g - (g @ swap_last(vh)) @ vh)
    return u @ (rotation @ vh + residual)


svdvals = _matrix_primitive("svdvals", lambda a: np.linalg.svd(a, compute_uv=False),
                            "np.linalg.svd({0}, compute_uv=False)", READS_X)
svdvals.defvjp(_svdvals_vjp)
svd_u = _matrix_primitive("svd_u", lambda a: np.linalg.svd(a, full_matrices=False)[0],
                          "np.linalg.svd({0}, full_matrices=False)[0]", {0: (0, "out")})
svd_u.defvjp(_svd_u_vjp)
svd_vh = _matrix_primitive("svd_vh", lambda a: np.linalg.svd(a, full_matrices=False)[2],
                           "np.linalg.svd({0}, full_matrices=False)[2]", {0: (0, "out")})
svd_vh.defvjp(_svd_vh_vjp)


# --- QR ------------------------------------------------------------------------
# For a square or tall a = q r (Walter and Lehmann; Liao et al. 2019):
#   grad a = (gq + q copyltu(M)) r^-T,  M = r gr^T - gq^T q,
# copyltu(M) the symmetric matrix with M's lower triangle.  A wide
# a = [x | y] has q r = [q r1 | q r2] with x = q r1 square: y's part is
# q gr2, and x's comes from the square rule with gq + y gr2^T.

def _qr_square_vjp(q, r, gq, gr):
    """The gradient of a square or tall matrix from its factors and their
    cotangents, either of which may be None."""
    if gr is None:
        m = negative(swap_last(gq) @ q)
    else:
        m = r @ swap_last(gr) if gq is None else r @ swap_last(gr) - swap_last(gq) @ q
    symmetric = tril(m, k=0) + swap_last(tril(m, k=-1))
    total = q @ symmetric if gq is None else gq + q @ symmetric
    return swap_last(solve(r, swap_last(total)))


def _columns(x, start=None, stop=None):
    return getitem(x, key=(Ellipsis, slice(start, stop)))


def _qr_vjp(gq, gr, a, q, r):
    rows, cols = shape_of(a)[-2:]
    if rows >= cols:
        return _qr_square_vjp(q, r, gq, gr)
    last = len(shape_of(a)) - 1
    r_x = _columns(r, stop=rows)
    if gr is None:
        y_part = np.zeros(shape_of(a)[:-1] + (cols - rows,), dtype_of(a))
        return concatenate(_qr_square_vjp(q, r_x, gq, None), y_part, axis=last)
    y, gr_x, gr_y = _columns(a, rows), _columns(gr, stop=rows), _columns(gr, rows)
    extra = y @ swap_last(gr_y)
    gq = extra if gq is None else gq + extra
    return concatenate(_qr_square_vjp(q, r_x, gq, gr_x), q @ gr_y, axis=last)


qr_q = _matrix_primitive("qr_q", lambda a: np.linalg.qr(a)[0], "np.linalg.qr({0})[0]",
                         {0: (0, "out")})
qr_q.defvjp(lambda g, out, a: _qr_vjp(g, None, a, out, qr_r(a)))
qr_r = _matrix_primitive("qr_r", lambda a: np.linalg.qr(a)[1], "np.linalg.qr({0})[1]",
                         {0: (0, "out")})
qr_r.defvjp(lambda g, out, a: _qr_vjp(None, g, a, qr_q(a), out))


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


eig_values = _matrix_primitive("eig_values", _eig_result(0), "np.linalg.eig({0})[0] + 0j",
                               READS_X, complex_rules=AS_WRITTEN)
eig_values.defvjp(_eig_values_vjp)
eig_vectors = _matrix_primitive("eig_vectors", _eig_result(1), "np.linalg.eig({0})[1] + 0j",
                                {0: (0, "out")}, complex_rules=AS_WRITTEN)
eig_vectors.defvjp(_eig_vectors_vjp)
