"""scipy.linalg's functions of matrices and the solvers numpy lacks, as primitives (importing
this needs scipy): ``expm``, ``logm``, ``sqrtm``, ``solve_sylvester``, ``solve_banded``.

Generated code spells them ``scipy.linalg.<name>(...)`` (``logm`` and ``sqrtm`` through
the ``_principal`` check below), with a helper that makes the module import
``scipy.linalg`` only when it calls one.  Like scipy's, they take stacks
of matrices in their leading axes, and the solvers broadcast their stacks.

Functions of a matrix.  For ``f`` given by a power series with real coefficients (exp,
the principal log and square root), the block matrix ``[[A, E], [0, A]]`` has

    f([[A, E], [0, A]]) = [[f(A), L(A, E)], [0, f(A)]]

where ``L(A, E)`` is the derivative of ``f`` at ``A`` in the direction ``E`` (Mathias
1996; Higham, *Functions of Matrices*, 3.2).  That block is the JVP, and since
``sum(G * L(A, E)) == sum(L(A.T, G) * E)`` for real coefficients, the VJP is
``L(A.T, G)``.  Both apply the primitive itself (to matrices twice the size), so they
differentiate again, to every order.  scipy computes the block as accurately as it
does ``f(A)`` (the block is not diagonalisable, which its Schur and Pade methods do
not mind).

A real matrix with an eigenvalue on the negative real axis has no real logarithm or
square root, where scipy returns a complex one: a type that would depend on the
values, so ``logm`` and ``sqrtm`` refuse it (a complex matrix gets its complex result).
Where scipy's result for a real matrix is complex by rounding alone (``logm`` in single
precision), they keep its real part.

All five are holomorphic in their matrices (the solvers are linear solves), so their
rules, written with plain transposes, hold for complex matrices too (``HOLOMORPHIC``).
"""

import inspect

import numpy as np
import scipy.linalg

from ir.autodiff.batching import Batched, inner_rank, stack_padded
from ir.sizes.guards import decide
from ir.primitive import HOLOMORPHIC, READS_X, Primitive, call, shape_of
from ir.primitives.broadcast import unbroadcast
from ir.primitives.elementwise import negative, zeros_like
from ir.primitives.linalg import as_column, swap_last
from ir.primitives.linalg_decompositions import matrix_primitive
from ir.primitives.reductions import sum_
from ir.primitives.shape import concatenate, getitem, pad, reshape, stack
from ir.sizes.shape_rules import broadcast_shapes, square_matrices

_IMPORT = {"scipy.linalg": "import scipy.linalg"}
"""The helper that makes a generated module import scipy.linalg (see codegen.module_text)."""


def _agree(a, b, what):
    """Require sizes ``a`` and ``b`` to be equal (a guard where that is a question)."""
    if not decide(a, "==", b, what):
        raise ValueError(f"{what} {a} and {b} differ")


# --- functions of a matrix ------------------------------------------------------

def _principal(function, a):
    """``function`` (scipy.linalg.logm or sqrtm) of ``a``.  For a real ``a`` scipy's result
    is complex where no real one exists (an eigenvalue on the negative real axis), and
    sometimes where its imaginary part is rounding alone (in single precision): a type
    that would depend on the values.  The real part is kept where the imaginary part is
    rounding, and the rest refused.  A stack of square matrices without entries gets
    zeros of the type ``function`` gives a matrix of ``a``'s (scipy's ``logm`` refuses
    it); other shapes get scipy's errors."""
    shape = np.shape(a)
    if np.size(a) == 0 and len(shape) >= 2 and shape[-1] == shape[-2]:
        return np.zeros(shape, function(np.eye(1, dtype=np.asarray(a).dtype)).dtype)
    out = function(a)
    if not np.iscomplexobj(out) or np.iscomplexobj(a):
        return out
    precision = np.asarray(a).dtype if np.asarray(a).dtype.kind == "f" else np.float64
    rounding = np.sqrt(np.finfo(precision).eps) * max(1.0, np.max(np.abs(out), initial=0.0))
    if np.all(np.abs(out.imag) <= rounding):
        return out.real
    raise ValueError(
        f"scipy.linalg.{function.__name__} of a real matrix with an eigenvalue on the "
        "negative real axis is complex, and tapegen keeps a result's type independent of "
        "its values; pass the matrix as complex (a + 0j) for the complex result")


def _block(a, e):
    """``[[a, e], [0, a]]`` for each matrix of the stacks."""
    last = len(shape_of(a)) - 1
    top = concatenate(a, e, axis=last)
    bottom = concatenate(zeros_like(e), a, axis=last)
    return concatenate(top, bottom, axis=last - 1)


def _derivative(function, a, e):
    """``L(a, e)``: the upper right block of ``function([[a, e], [0, a]])``."""
    n = shape_of(a)[-1]
    return getitem(function(_block(a, e)), key=(Ellipsis, slice(None, n), slice(n, None)))


def _matrix_function(name, impl, source, helpers):
    prim = matrix_primitive(name, impl, source, READS_X, square_matrices,
                            helpers={**_IMPORT, **helpers}, complex_rules=HOLOMORPHIC,
                            vjps=(lambda g, out, a: _derivative(prim, swap_last(a), g),),
                            jvp=lambda args, params, out, tangents:
                                _derivative(prim, args[0], tangents[0]))
    return prim


_PRINCIPAL = {"_principal": inspect.getsource(_principal)}

expm = _matrix_function("expm", scipy.linalg.expm, call("scipy.linalg.expm"), {})
logm = _matrix_function("logm", lambda a: _principal(scipy.linalg.logm, a),
                        "_principal(scipy.linalg.logm, {0})", _PRINCIPAL)
sqrtm = _matrix_function("sqrtm", lambda a: _principal(scipy.linalg.sqrtm, a),
                         "_principal(scipy.linalg.sqrtm, {0})", _PRINCIPAL)


# --- solvers whose stacks broadcast ---------------------------------------------

def _stacks_aligned(args, cores):
    """The arrays of a batch of arguments with ``cores`` core axes each: batched ones get
    unit stack axes after the batch axis, so it stays in front of every stack."""
    ranks = [inner_rank(a) - c for a, c in zip(args, cores)]
    top = max(ranks)
    return [stack_padded(a, a.value, r, top) if isinstance(a, Batched) else a
            for a, r in zip(args, ranks)]


def _batch_sylvester(prim, args, params, size):
    return Batched(prim(*_stacks_aligned(args, (2, 2, 2)), **params), size)


def _sylvester_shape(avals, params):
    a, b, q = (tuple(aval[0]) for aval in avals)
    _agree(a[-2], a[-1], "solve_sylvester's a: a square matrix's sizes")
    _agree(b[-2], b[-1], "solve_sylvester's b: a square matrix's sizes")
    _agree(a[-1], q[-2], "solve_sylvester's sizes of a and q")
    _agree(b[-1], q[-1], "solve_sylvester's sizes of b and q")
    return [*broadcast_shapes(a[:-2], b[:-2], q[:-2]), *q[-2:]]


def _holds_nothing(x):
    """Whether ``x``'s matrices have no entries (for sizes known to be 0)."""
    return any(type(size) is int and size == 0 for size in shape_of(x)[-2:])


def _sylvester_vjp(position):
    """The rule for input ``position``: with ``y`` solving ``a.T y + y b.T = g``, grad q
    is ``y``, grad a ``-y x.T`` and grad b ``-x.T y`` (a dx + dx b = dq - da x - x db).
    Where ``a`` or ``b`` has no entries scipy's result is uninitialised memory, which no
    input moves."""
    def rule(g, out, a, b, q):
        args = (a, b, q)
        if _holds_nothing(a) or _holds_nothing(b):
            return zeros_like(args[position])
        y = solve_sylvester(swap_last(a), swap_last(b), g)
        if position == 0:
            y = negative(y @ swap_last(out))
        elif position == 1:
            y = negative(swap_last(out) @ y)
        return unbroadcast(y, args[position])
    return rule


solve_sylvester = matrix_primitive(
    "solve_sylvester", scipy.linalg.solve_sylvester, call("scipy.linalg.solve_sylvester"),
    {0: (0, 1, "out"), 1: (0, 1, "out"), 2: (0, 1)}, _sylvester_shape, helpers=_IMPORT,
    complex_rules=HOLOMORPHIC, batch=_batch_sylvester,
    vjps=tuple(_sylvester_vjp(position) for position in range(3)))


# --- banded solves ---------------------------------------------------------------
# ab holds a in LAPACK's banded storage, ab[u + i - j, j] = a[i, j]; its other entries
# are never read.  a.T is banded with (u, l): row r of its storage is row l + u - r of
# ab, shifted by r - l columns.  The gradient of a is -(gb x.T), read on the band.

def _shifted(x, step, axis):
    """``x[..., j + step, ...]`` along ``axis`` (non-negative), zero past either end."""
    if step == 0:
        return x
    before, after = max(-step, 0), max(step, 0)
    widths = [(0, 0)] * len(shape_of(x))
    widths[axis] = (before, after)
    padded = pad(x, pad_width=tuple(widths), constant_values=0)
    return getitem(padded, key=(slice(None),) * axis + (slice(after, -before or None),))


def _band_transposed(ab, lower, upper):
    """The banded storage, with ``(upper, lower)``, of the transposes of ``ab``'s matrices."""
    rank = len(shape_of(ab))
    rows = [_shifted(getitem(ab, key=(Ellipsis, lower + upper - r, slice(None))), r - lower,
                     rank - 2) for r in range(lower + upper + 1)]
    return stack(*rows, axis=rank - 2)


def _transposed_solve(g, ab, b, l_and_u):
    """``a.T``'s solve of ``g``: the cotangent of ``b`` before any broadcasting is undone,
    as a stack of columns when ``b`` is a vector."""
    lower, upper = l_and_u
    column = as_column(g) if len(shape_of(b)) == 1 else g
    return solve_banded(_band_transposed(ab, lower, upper), column, l_and_u=(upper, lower))


def _banded_vjp_ab(g, out, ab, b, l_and_u):
    lower, upper = l_and_u
    gb = _transposed_solve(g, ab, b, l_and_u)
    x = as_column(out) if len(shape_of(b)) == 1 else out
    rows_axis = len(shape_of(x)) - 2
    rows = [sum_(_shifted(gb, r - upper, rows_axis) * x, axis=(rows_axis + 1,), keepdims=False)
            for r in range(lower + upper + 1)]
    return unbroadcast(negative(stack(*rows, axis=rows_axis)), ab)


def _banded_vjp_b(g, out, ab, b, l_and_u):
    gb = _transposed_solve(g, ab, b, l_and_u)
    if len(shape_of(b)) == 1:
        gb = reshape(gb, shape=shape_of(gb)[:-1])
    return unbroadcast(gb, b)


def _banded_abstract(avals, params):
    """Shape and dtype from identity matrices in banded storage (ones in row ``u``): the
    default, zeros, would be singular."""
    (ab_shape, ab_dtype), (b_shape, b_dtype) = avals
    rows = (np.arange(ab_shape[-2]) == params["l_and_u"][1])[:, None]
    out = solve_banded.impl(np.broadcast_to(rows, ab_shape).astype(ab_dtype),
                            np.zeros(b_shape, b_dtype), **params)
    return np.shape(out), np.result_type(out)


def _banded_shape(avals, params):
    ab, b = (tuple(aval[0]) for aval in avals)
    lower, upper = params["l_and_u"]
    _agree(ab[-2], lower + upper + 1, "solve_banded's rows of ab and l + u + 1")
    _agree(ab[-1], b[-2] if len(b) > 1 else b[0], "solve_banded's sizes of ab and b")
    if len(b) == 1:
        return [*ab[:-2], b[0]]
    return [*broadcast_shapes(ab[:-2], b[:-2]), *b[-2:]]


def _batch_banded(prim, args, params, size):
    """A batch of vectors ``b`` is made a batch of columns, which scipy cannot mistake for
    a matrix."""
    ab, b = args
    vector = isinstance(b, Batched) and inner_rank(b) == 1
    if vector:
        b = Batched(as_column(b.value), size)
    out = prim(*_stacks_aligned([ab, b], (2, 1 if inner_rank(b) == 1 else 2)), **params)
    return Batched(reshape(out, shape=shape_of(out)[:-1]) if vector else out, size)


solve_banded = Primitive(
    "solve_banded", lambda ab, b, l_and_u: scipy.linalg.solve_banded(l_and_u, ab, b),
    reads={0: (0, "out"), 1: (0,)}, helpers=_IMPORT, abstract=_banded_abstract,
    complex_rules=HOLOMORPHIC,
    source=lambda params, shapes: f"scipy.linalg.solve_banded({params['l_and_u']!r}, {{0}}, "
                                  "{1})",
    batch=_batch_banded, shape_rule=_banded_shape, vjps=(_banded_vjp_ab, _banded_vjp_b))
