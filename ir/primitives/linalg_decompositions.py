"""Inverses, determinants and the Cholesky and QR decompositions of (stacks of) matrices.

The IR's nodes have one output each, so a numpy function with several
results is several primitives, one per result, each spelled as the numpy
call and the index of its result (``np.linalg.qr(a)[1]``), or as numpy's
function for that result alone (``np.linalg.det(a)``):

    slogdet  ->  slogdet_sign (no gradient; slogdet_phase if complex), logabsdet
    qr       ->  qr_q, qr_r                 (mode='reduced')

numpy's function, bound beside them, returns a named tuple of them with
numpy's field names (``sign, logabsdet = np.linalg.slogdet(a)``).  The
eigendecompositions and the SVD, made of primitives the same way, are in
``linalg_spectral``.

A rule that needs a sibling result applies the sibling primitive to the same
input; eagerly that recomputes the decomposition, and in generated code the
optimiser's common-subexpression pass leaves one call per result.  numpy's
LAPACK calls are deterministic, so siblings agree on signs (the gauge).

Complex matrices: ``inv``, ``solve``, ``det`` (and ``cofactors``) are
holomorphic and their rules hold as written.  ``cholesky`` and ``slogdet``'s
rules give TensorFlow's cotangent for complex matrices (``AS_WRITTEN``): the
real rules with each transpose an adjoint.  ``slogdet``'s sign is then a
complex number of modulus 1 with a derivative (TensorFlow gives it none; for
real matrices it is piecewise constant, and gets none), its ``logabsdet``
real.  ``pinv`` and ``qr``'s rules are for real matrices (``REAL_ONLY``), and
numpy's functions bound to them refuse complex tensors.

Conventions where the derivative is not defined:

- ``cholesky`` (like ``eigh`` in ``linalg_spectral``) reads one triangle of
  its input, and of its diagonal the real part: its rule gives the
  derivative of what numpy computes, ``tril(S + S^H)`` with the diagonal
  taken once, ``S`` the gradient for Hermitian perturbations (TensorFlow
  gives that triangle for ``eigh``, and ``S`` itself for ``cholesky``; both
  agree with it along Hermitian perturbations).
- ``det`` is differentiable everywhere: its gradient is the cofactor matrix
  ``adj(a).T``, computed from an SVD so that it holds at singular matrices
  too (autograd and TensorFlow use ``det(a) * inv(a).T``, which fails
  there).  Its second derivative uses ``inv`` and so, at an exactly singular
  matrix, raises numpy's ``LinAlgError``.  ``logabsdet`` is -inf there and
  has no derivative.
- ``qr``, ``inv``, ``solve``, ``pinv`` assume full rank (``pinv``: locally
  constant rank) near the point.

``matrix_power``, ``lstsq`` and ``cond`` are compositions, written in ``tracer``.
"""

import collections
import inspect

import numpy as np

from ir.autodiff.batching import (Batched, first_batched_only, inner_rank, on_stacks,
                                  one_at_a_time, stack_padded)
from ir.bindings import LINEAR_ALGEBRA, array_shape, binds
from ir.primitive import (AS_WRITTEN, HOLOMORPHIC, LINEAR, READS_NOTHING, READS_OUT, READS_X,
                          REAL_LINEAR, REAL_ONLY, Primitive, call, is_complex, shape_of)
from ir.primitives.broadcast import broadcast_to, unbroadcast
from ir.primitives.elementwise import conj, imag, negative, zeros_like
from ir.primitives.linalg import as_column, as_row, swap_last
from ir.linalg_checks import require_matrices
from ir.primitives.reductions import sum_
from ir.primitives.shape import concatenate, getitem, reshape
from ir.sizes.shape_rules import (matrix_stack, same_shape, solved, square_matrices,
                                  swapped_matrix, thin_factor)


# --- triangles ----------------------------------------------------------------
# Masks of the last two axes: each is its own adjoint.

@first_batched_only
def _batch_triangle(prim, args, params, size):
    """numpy applies ``triu``/``tril`` to the last two axes of a stack."""
    if args[0].ndim < 2:
        return one_at_a_time(prim, args, params, size)
    return Batched(prim(args[0].value, **params), size)


triu = Primitive("triu", lambda x, k: np.triu(x, k), reads=READS_NOTHING,
                 complex_rules=REAL_LINEAR, linearity=LINEAR, batch=_batch_triangle,
                 source=call("np.triu", k=0), array_api=call("_triu", k=0), shape_rule=same_shape,
                 vjps=(lambda g, out, x, k: triu(g, k=k),))
tril = Primitive("tril", lambda x, k: np.tril(x, k), reads=READS_NOTHING,
                 complex_rules=REAL_LINEAR, linearity=LINEAR, batch=_batch_triangle,
                 source=call("np.tril", k=0), array_api=call("_tril", k=0), shape_rule=same_shape,
                 vjps=(lambda g, out, x, k: tril(g, k=k),))


def _numpy_triangle(prim):
    """numpy's signature of ``triu``/``tril``: a vector is first repeated into rows of a
    square matrix, as numpy does."""
    def mask(m, k=0):
        shape = array_shape(m)
        if len(shape) == 1:
            m = broadcast_to(m, shape=(shape[0], shape[0]))
        return prim(m, k=int(k))
    return mask


binds(np.triu, topic=LINEAR_ALGEBRA)(_numpy_triangle(triu))
binds(np.tril, topic=LINEAR_ALGEBRA)(_numpy_triangle(tril))



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


def matrix_primitive(name, impl, source, reads, shape_rule, helpers=None,
                     complex_rules=REAL_ONLY, batch=on_stacks, **rules):
    """A primitive on (stacks of) matrices, real unless ``complex_rules`` says otherwise;
    ``rules`` are its derivative rules (``vjps``, ``jvp``), as for ``Primitive``."""
    return Primitive(name, impl, reads=reads, source=source, helpers=helpers,
                     complex_rules=complex_rules, abstract=_on_identities(impl), batch=batch,
                     shape_rule=shape_rule, **rules)


def _as_matrix_scale(v):
    """``v[..., None, None]``: one number per matrix of a stack, to scale it."""
    return reshape(v, shape=shape_of(v) + (1, 1))


def adjoint(x):
    """The conjugate transpose of each matrix: its transpose, when real."""
    return conj(swap_last(x))


def one_triangle(g, lower):
    """The gradient of a function of the Hermitian matrix numpy builds from one triangle
    of ``a`` (lower or upper) and the real part of its diagonal, from ``g``, a gradient
    whose Hermitian part is the one for Hermitian perturbations: ``tril(g + g^H)`` with
    the diagonal taken once (``triu`` for the upper triangle).  The other triangle, and
    the imaginary part of the diagonal, do not move what numpy computes."""
    both = g + adjoint(g)
    if lower:
        return 0.5 * (tril(both, k=0) + tril(both, k=-1))
    return 0.5 * (triu(both, k=0) + triu(both, k=1))


# --- inverses and solves ------------------------------------------------------

inv = matrix_primitive("inv", np.linalg.inv, "np.linalg.inv({0})", READS_OUT,
                       complex_rules=HOLOMORPHIC, shape_rule=square_matrices,
                       vjps=(lambda g, out, a: negative(swap_last(out) @ g @ swap_last(out)),))


@binds(np.linalg.inv, topic=LINEAR_ALGEBRA)
def _inv(a):
    require_matrices("inv", a, complex_ok=True)
    return inv(a)


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
solve = matrix_primitive("solve", np.linalg.solve, "np.linalg.solve({0}, {1})",
                         {0: (0, "out"), 1: (0,)}, complex_rules=HOLOMORPHIC,
                         batch=_batch_solve, shape_rule=solved,
                         vjps=(_solve_vjp_a, _solve_vjp_b))


@binds(np.linalg.solve, topic=LINEAR_ALGEBRA)
def _solve(a, b):
    require_matrices("solve", a, complex_ok=True)
    return solve(a, b)


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
pinv = matrix_primitive("pinv", lambda a, rtol: np.linalg.pinv(a, rtol=rtol),
                        call("np.linalg.pinv", rtol=PINV_RTOL), {0: (0, "out")},
                        shape_rule=swapped_matrix, vjps=(_pinv_vjp,))


@binds(np.linalg.pinv, topic=LINEAR_ALGEBRA)
def _pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    if rcond is not None or rtol is not np._NoValue or hermitian:
        raise TypeError("np.linalg.pinv(..., rcond=, rtol=, hermitian=) on tracer tensors: "
                        "only numpy's default cut-off is supported; call np.linalg.pinv(a)")
    require_matrices("pinv", a, square=False)
    return pinv(a, rtol=PINV_RTOL)


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
cofactors = matrix_primitive("cofactors", _cofactors, "_cofactors({0})", READS_X,
                             helpers={"_cofactors": inspect.getsource(_cofactors)},
                             complex_rules=HOLOMORPHIC, shape_rule=square_matrices,
                             vjps=(_cofactors_vjp,))

det = matrix_primitive("det", np.linalg.det, "np.linalg.det({0})", READS_X,
                       complex_rules=HOLOMORPHIC, shape_rule=matrix_stack,
                       vjps=(lambda g, out, a: _as_matrix_scale(g) * cofactors(a),))


@binds(np.linalg.det, topic=LINEAR_ALGEBRA)
def _det(a):
    require_matrices("det", a, complex_ok=True)
    return det(a)


def _slogdet_sign(a):
    return np.linalg.slogdet(a)[0]


# A real matrix's sign is piecewise constant; a complex one's is det / |det|, of
# modulus 1, with d sign = i sign Im(tr(a^-1 da)), whose cotangent is
# -i Im(conj(g) sign) a^-H: a primitive of its own, as it has a derivative.
slogdet_sign = Primitive("slogdet_sign", _slogdet_sign, no_gradient="is piecewise constant",
                         batch=on_stacks, shape_rule=matrix_stack,
                         source="np.linalg.slogdet({0})[0]",
                         abstract=_on_identities(_slogdet_sign))
slogdet_phase = matrix_primitive("slogdet_phase", _slogdet_sign, "np.linalg.slogdet({0})[0]",
                                 {0: (0, "out")}, shape_rule=matrix_stack,
                                 complex_rules=AS_WRITTEN,
                                 vjps=(lambda g, out, a: _as_matrix_scale(-1j * imag(conj(g) * out))
                                       * adjoint(inv(a)),))
logabsdet = matrix_primitive("logabsdet", lambda a: np.linalg.slogdet(a)[1],
                             "np.linalg.slogdet({0})[1]", READS_X, shape_rule=matrix_stack,
                             complex_rules=AS_WRITTEN,
                             vjps=(lambda g, out, a: _as_matrix_scale(g) * adjoint(inv(a)),))


SlogdetResult = collections.namedtuple("SlogdetResult", "sign logabsdet")


@binds(np.linalg.slogdet, topic=LINEAR_ALGEBRA)
def _slogdet(a):
    require_matrices("slogdet", a, complex_ok=True)
    sign = slogdet_phase(a) if is_complex(a) else slogdet_sign(a)
    return SlogdetResult(sign, logabsdet(a))


# --- Cholesky -----------------------------------------------------------------

def _cholesky_vjp(g, out, a):
    # Murray (2016), with adjoints for complex matrices: for Hermitian perturbations
    # the gradient is the Hermitian part of L^-H Phi(L^H G) L^-1, where Phi keeps the
    # lower triangle and halves the diagonal; numpy reads the lower triangle of a.
    lh = adjoint(out)
    product = lh @ g
    phi = 0.5 * (tril(product, k=0) + tril(product, k=-1))
    left = solve(lh, phi)
    return one_triangle(adjoint(solve(lh, adjoint(left))), lower=True)


cholesky = matrix_primitive("cholesky", np.linalg.cholesky, "np.linalg.cholesky({0})",
                            READS_OUT, shape_rule=square_matrices, complex_rules=AS_WRITTEN,
                            vjps=(_cholesky_vjp,))


@binds(np.linalg.cholesky, topic=LINEAR_ALGEBRA)
def _cholesky(a, /, *, upper=False):
    """``upper``: the factor of the transpose (which reads ``a``'s upper triangle),
    transposed, as numpy's ``U`` with ``a = U^H U``."""
    require_matrices("cholesky", a, complex_ok=True)
    if upper:
        return swap_last(cholesky(swap_last(a)))
    return cholesky(a)


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
        y_part = zeros_like(_columns(a, rows))
        return concatenate(_qr_square_vjp(q, r_x, gq, None), y_part, axis=last)
    y, gr_x, gr_y = _columns(a, rows), _columns(gr, stop=rows), _columns(gr, rows)
    extra = y @ swap_last(gr_y)
    gq = extra if gq is None else gq + extra
    return concatenate(_qr_square_vjp(q, r_x, gq, gr_x), q @ gr_y, axis=last)


qr_q = matrix_primitive("qr_q", lambda a: np.linalg.qr(a)[0], "np.linalg.qr({0})[0]",
                        {0: (0, "out")}, thin_factor("left"),
                        vjps=(lambda g, out, a: _qr_vjp(g, None, a, out, qr_r(a)),))
qr_r = matrix_primitive("qr_r", lambda a: np.linalg.qr(a)[1], "np.linalg.qr({0})[1]",
                        {0: (0, "out")}, thin_factor("right"),
                        vjps=(lambda g, out, a: _qr_vjp(None, g, a, qr_q(a), out),))


QRResult = collections.namedtuple("QRResult", "Q R")


@binds(np.linalg.qr, topic=LINEAR_ALGEBRA)
def _qr(a, mode="reduced"):
    require_matrices("qr", a, square=False)
    rows, cols = array_shape(a)[-2:]
    if mode == "r":
        return qr_r(a)
    if mode not in ("reduced", "complete") or (mode == "complete" and rows > cols):
        raise TypeError(
            f"np.linalg.qr(a, mode={mode!r}) on tracer tensors is not supported: the extra "
            "columns of a complete Q, and the raw LAPACK output, have no derivative rule; use "
            "mode='reduced' or mode='r'")
    return QRResult(qr_q(a), qr_r(a))
