"""Products and the linear maps of matrices: ``matmul`` (with numpy's 1-D and
batch rules), ``tensordot``, ``einsum``, diagonals (``diagonal`` and its
adjoint ``embed_diagonal``), triangles (``triu``, ``tril``) and the
Euclidean/Frobenius ``norm``.  Matrix decompositions and inverses live in
``linalg_decompositions`` and ``linalg_spectral``.

Adjoints are transposed products; batch dimensions that were broadcast are
summed back with ``unbroadcast``.  Rules use ``swapaxes`` on the last two
axes, never ``.T``, so they hold for stacked matrices.

numpy's functions that are one of these primitives (``dot``, ``inner``,
``matmul``, ``tensordot``, ``diagonal``, ``diag``, ``triu``, ``tril`` and their
``np.linalg`` spellings) are bound beside them; ``einsum``, ``trace``, ``kron``
and the norms are compositions, written in ``tracer``.
"""

import inspect
import string

import numpy as np

from ir.autodiff.batching import (Batched, along_axes, first_batched_only, inner_rank, one_at_a_time,
                         stack_padded)
from ir.bindings import LINEAR_ALGEBRA, array_rank, array_shape, binds, no_extras, one_axis
from ir.sizes.guards import decide
from ir.primitive import (AS_WRITTEN, LINEAR, MULTILINEAR, READS_NOTHING, READS_OTHER, REAL_LINEAR,
                          Primitive, call, not_in_the_standard, shape_of)
from ir.primitives.broadcast import broadcast_to, unbroadcast
from ir.primitives.elementwise import equal, where
from ir.primitives.reductions import kept_shape
from ir.primitives.shape import reshape, transpose
from ir.sizes.shape_rules import (contracted, diagonal_of, embedded_diagonal, matrix_product,
                                  reduction)


def swap_last(x):
    """``swapaxes(x, -1, -2)`` as a transpose with an explicit permutation."""
    rank = len(shape_of(x))
    axes = tuple(range(rank - 2)) + (rank - 1, rank - 2)
    return transpose(x, axes=axes)


def as_column(v):
    """``v[..., None]``: a stack of vectors as a stack of one-column matrices."""
    return reshape(v, shape=shape_of(v) + (1,))


def as_row(v):
    """``v[..., None, :]``: a stack of vectors as a stack of one-row matrices."""
    shape = shape_of(v)
    return reshape(v, shape=shape[:-1] + (1,) + shape[-1:])


def _matmul_vjp_x(g, out, x, y):
    x_rank, y_rank = len(shape_of(x)), len(shape_of(y))
    if y_rank == 1:
        # (..., n) @ (n,) -> (...): each x row meets the same y.
        return unbroadcast(as_column(g) * y, x)
    if x_rank == 1:
        # (n,) @ (..., n, m) -> (..., m)
        if y_rank == 2:
            return y @ g
        product = y @ as_column(g)
        return unbroadcast(reshape(product, shape=shape_of(product)[:-1]), x)
    return unbroadcast(g @ swap_last(y), x)


def _matmul_vjp_y(g, out, x, y):
    x_rank, y_rank = len(shape_of(x)), len(shape_of(y))
    if x_rank == 1:
        if y_rank == 1:
            return g * x
        # (n,) @ (..., n, m) -> (..., m)
        if y_rank == 2:
            return as_column(x) * g
        return unbroadcast(as_column(x) * as_row(g), y)
    if y_rank == 1:
        # (..., n) @ (n,) -> (...)
        if x_rank == 2:
            return g @ x
        return unbroadcast(x * as_column(g), y)
    return unbroadcast(swap_last(x) @ g, y)


def _batch_matmul(prim, args, params, size):
    """Both operands as stacks of matrices with the batch axis first; vectors become
    one-row or one-column matrices, squeezed out again afterwards."""
    x, y = args
    rank_x, rank_y = inner_rank(x), inner_rank(y)
    if rank_x == 1 and rank_y == 2 and not isinstance(y, Batched):
        return Batched(prim(x.value, y), size)  # a batch of row vectors is a matrix
    if rank_x == 2 and rank_y == 1 and not isinstance(x, Batched):
        return Batched(prim(y.value, transpose(x, axes=(1, 0))), size)
    batch_rank = max(rank_x, 2) - 2, max(rank_y, 2) - 2
    stack_rank = max(batch_rank)
    x_value = stack_padded(x, _batched_matrix(x, row=True), batch_rank[0], stack_rank)
    y_value = stack_padded(y, _batched_matrix(y, row=False), batch_rank[1], stack_rank)
    result = prim(x_value, y_value)
    shape = tuple(shape_of(result))
    if rank_x == 1:
        shape = shape[:-2] + shape[-1:]
    if rank_y == 1:
        shape = shape[:-1]
    if shape != tuple(shape_of(result)):
        result = reshape(result, shape=shape)
    return Batched(result, size)


def _batched_matrix(value, row):
    """The array of ``value`` with a 1-D (inner) value made a ``(1, k)`` or ``(k, 1)`` matrix."""
    array = value.value if isinstance(value, Batched) else value
    if inner_rank(value) != 1:
        return array
    shape = tuple(shape_of(array))
    return reshape(array, shape=shape[:-1] + ((1, shape[-1]) if row else (shape[-1], 1)))


matmul = Primitive("matmul", np.matmul, reads=READS_OTHER, source="{0} @ {1}",
                   linearity=MULTILINEAR, batch=_batch_matmul, shape_rule=matrix_product,
                   vjps=(_matmul_vjp_x, _matmul_vjp_y))


@binds(np.matmul)
def _matmul(a, b, out=None, **kwargs):
    no_extras("matmul", out=out, **kwargs)
    return matmul(a, b)


@binds(np.linalg.matmul, topic=LINEAR_ALGEBRA)
def _linalg_matmul(x1, x2, /):
    return matmul(x1, x2)


def _free_axes(rank, contracted):
    return [i for i in range(rank) if i not in contracted]


def _tensordot_vjp_a(g, out, a, b, axes):
    a_axes, b_axes = axes
    a_rank, b_rank = len(shape_of(a)), len(shape_of(b))
    n_free_a = a_rank - len(a_axes)
    g_b_free = tuple(range(n_free_a, len(shape_of(g))))
    partial = tensordot(g, b, axes=(g_b_free, tuple(_free_axes(b_rank, b_axes))))
    # partial's axes: a's free axes, then a's contracted axes in the order of sorted(b_axes).
    order = _free_axes(a_rank, a_axes) + [a_axes[b_axes.index(j)] for j in sorted(b_axes)]
    return _reorder(partial, order)


def _tensordot_vjp_b(g, out, a, b, axes):
    a_axes, b_axes = axes
    a_rank, b_rank = len(shape_of(a)), len(shape_of(b))
    n_free_a = a_rank - len(a_axes)
    partial = tensordot(a, g, axes=(tuple(_free_axes(a_rank, a_axes)), tuple(range(n_free_a))))
    # partial's axes: b's contracted axes in the order of sorted(a_axes), then b's free axes.
    order = [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + _free_axes(b_rank, b_axes)
    return _reorder(partial, order)


def _reorder(value, order):
    """Transpose ``value`` whose axis k is the original axis ``order[k]``."""
    axes = tuple(int(i) for i in np.argsort(order))
    if axes == tuple(range(len(axes))):
        return value
    return transpose(value, axes=axes)


def _batch_tensordot(prim, args, params, size):
    a, b = args
    a_axes, b_axes = params["axes"]
    if isinstance(a, Batched) and not isinstance(b, Batched):
        return Batched(prim(a.value, b, axes=(tuple(i + 1 for i in a_axes), b_axes)), size)
    if isinstance(b, Batched) and not isinstance(a, Batched):
        result = prim(a, b.value, axes=(a_axes, tuple(i + 1 for i in b_axes)))
        free = len(shape_of(a)) - len(a_axes)
        rank = len(shape_of(result))
        order = (free,) + tuple(range(free)) + tuple(range(free + 1, rank))
        return Batched(transpose(result, axes=order), size)
    return one_at_a_time(prim, args, params, size)


tensordot = Primitive("tensordot", lambda a, b, axes: np.tensordot(a, b, axes=axes),
                      reads=READS_OTHER, source=call("np.tensordot", axes=None),
                      linearity=MULTILINEAR, batch=_batch_tensordot, shape_rule=contracted,
                      vjps=(_tensordot_vjp_a, _tensordot_vjp_b))


def normalize_tensordot_axes(axes, a_rank, b_rank):
    """numpy's ``axes`` argument as a pair of tuples of non-negative axes."""
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        return tuple(range(a_rank - n, a_rank)), tuple(range(n))
    a_axes, b_axes = axes
    a_axes = (a_axes,) if isinstance(a_axes, (int, np.integer)) else tuple(a_axes)
    b_axes = (b_axes,) if isinstance(b_axes, (int, np.integer)) else tuple(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError("np.tensordot: shape-mismatch for sum (axes lists differ in length)")
    return (tuple(one_axis(i, a_rank) for i in a_axes),
            tuple(one_axis(i, b_rank) for i in b_axes))


@binds(np.tensordot)
def _tensordot(a, b, axes=2):
    return tensordot(a, b, axes=normalize_tensordot_axes(axes, array_rank(a), array_rank(b)))


@binds(np.linalg.tensordot, topic=LINEAR_ALGEBRA)
def _linalg_tensordot(x1, x2, /, *, axes=2):
    return _tensordot(x1, x2, axes)


@binds(np.dot)
def _dot(a, b, out=None):
    """A product with a scalar, ``matmul`` up to matrices, ``tensordot`` beyond."""
    no_extras("dot", out=out)
    a_rank, b_rank = array_rank(a), array_rank(b)
    if a_rank == 0 or b_rank == 0:
        return a * b
    if a_rank <= 2 and b_rank <= 2:
        return matmul(a, b)
    b_axis = b_rank - 2 if b_rank >= 2 else 0
    return tensordot(a, b, axes=((a_rank - 1,), (b_axis,)))


@binds(np.inner, topic=LINEAR_ALGEBRA)
def _inner(a, b):
    if array_rank(a) == 0 or array_rank(b) == 0:
        return a * b
    return tensordot(a, b, axes=((array_rank(a) - 1,), (array_rank(b) - 1,)))


# --- einsum -------------------------------------------------------------------
# The tracer hands ``einsum`` explicit subscripts in a normal form: no
# ellipsis, no letter twice in one operand (diagonals are taken first with
# ``diagonal``), every operand letter also in the output or another operand
# (letters summed within one operand are summed first with ``sum``), and
# operands already broadcast to equal sizes per letter.  In that form the
# adjoint of one operand is again such an einsum: the cotangent with the
# other operands, written out in that operand's subscripts.


def _einsum_parts(subscripts):
    """``"ij,jk->ik"`` as ``(["ij", "jk"], "ik")``."""
    inputs, output = subscripts.split("->")
    return inputs.split(","), output


def _einsum_vjp(position, g, out, *operands, subscripts):
    inputs, output = _einsum_parts(subscripts)
    others = [k for k in range(len(operands)) if k != position]
    spec = ",".join([output] + [inputs[k] for k in others]) + "->" + inputs[position]
    return einsum(g, *(operands[k] for k in others), subscripts=spec)


def _einsum_impl(*operands, subscripts):
    return np.einsum(subscripts, *operands, optimize=len(operands) > 1)


def _spell_einsum(function, optimize=""):
    """``function(subscripts, *operands)``, and ``optimize`` for two operands or more."""
    def spell(params, shapes):
        slots = ", ".join(f"{{{k}}}" for k in range(len(shapes)))
        keywords = optimize if len(shapes) > 1 else ""
        return f"{function}({params['subscripts']!r}, {slots}{keywords})"
    return spell


def _spell_by_matmuls(params, shapes):
    """The ``_einsum`` helper's chain of ``matmul``s, for subscripts in the normal form."""
    text = params["subscripts"]
    if "->" not in text or "." in text or any(
            len(set(term)) != len(term) for term in text.split("->")[0].split(",")):
        raise not_in_the_standard(
            "np.einsum", "the _einsum helper takes letter indices, each once per operand, and ->")
    return _spell_einsum("_einsum")(params, shapes)


def _batch_einsum(prim, args, params, size):
    """A letter no operand uses labels the batch axis of each batched operand."""
    inputs, output = _einsum_parts(params["subscripts"])
    letter = next(c for c in string.ascii_letters if c not in params["subscripts"])
    terms = [letter + t if isinstance(a, Batched) else t for t, a in zip(inputs, args)]
    values = [a.value if isinstance(a, Batched) else a for a in args]
    subscripts = ",".join(terms) + "->" + letter + output
    return Batched(prim(*values, subscripts=subscripts), size)


def _einsum_shape(avals, params):
    """Each output letter's size, as the operands that have it agree on it."""
    inputs, output = _einsum_parts(params["subscripts"])
    sizes = {}
    for letters, aval in zip(inputs, avals):
        for letter, size in zip(letters, aval[0]):
            if letter not in sizes:
                sizes[letter] = size
            elif not decide(sizes[letter], "==", size, f"einsum's sizes of {letter!r}"):
                raise ValueError(f"einsum: sizes {sizes[letter]} and {size} of {letter!r} differ")
    return tuple(sizes[letter] for letter in output)


# Every operand's rule reads all the other operands.
einsum = Primitive("einsum", _einsum_impl, reads=None,
                   source=_spell_einsum("np.einsum", ", optimize=True"),
                   array_api=_spell_by_matmuls,
                   linearity=MULTILINEAR, batch=_batch_einsum, shape_rule=_einsum_shape,
                   nary_vjp=_einsum_vjp)


# --- diagonals ----------------------------------------------------------------

def _embed_diagonal(values, shape, offset, axis1, axis2):
    """Zeros of ``shape`` with ``values`` on the diagonal that
    ``np.diagonal(_, offset, axis1, axis2)`` reads (its last axis runs along it)."""
    out = np.zeros(shape, values.dtype)
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))
    i = np.arange(values.shape[-1])
    view[..., i + max(-offset, 0), i + max(offset, 0)] = values
    return out


def _spell_embed_diagonal(diag):
    """Spelled with ``diag`` (numpy's ``np.diag``) where a vector becomes a matrix."""
    def spell(params, shapes):
        offset = params["offset"]
        if len(shapes[0]) == 1 and params["shape"] == (shapes[0][0] + abs(offset),) * 2:
            return f"{diag}({{0}}, {offset})" if offset else f"{diag}({{0}})"
        args = ", ".join(repr(params[k]) for k in ("shape", "offset", "axis1", "axis2"))
        return f"_embed_diagonal({{0}}, {args})"
    return spell


def _spell_moved_diagonal(params, shapes):
    """The standard's ``linalg.diagonal`` reads the last two axes: numpy's are moved there."""
    axes = f"({params['axis1']}, {params['axis2']})"
    return f"xp.linalg.diagonal(xp.moveaxis({{0}}, {axes}, (-2, -1)), offset={params['offset']})"


@first_batched_only
def _batch_diagonal(prim, args, params, size):
    x = args[0]
    return Batched(prim(x.value, offset=params["offset"], axis1=params["axis1"] % x.ndim + 1,
                        axis2=params["axis2"] % x.ndim + 1), size)


@first_batched_only
def _batch_embed_diagonal(prim, args, params, size):
    rank = len(params["shape"])
    return Batched(prim(args[0].value, shape=(size,) + tuple(params["shape"]),
                        offset=params["offset"], axis1=params["axis1"] % rank + 1,
                        axis2=params["axis2"] % rank + 1), size)


diagonal = Primitive(
    "diagonal", lambda x, offset, axis1, axis2: np.diagonal(x, offset, axis1, axis2),
    reads=READS_NOTHING, source=call("np.diagonal", offset=0, axis1=0, axis2=1),
    array_api=_spell_moved_diagonal,
    complex_rules=REAL_LINEAR, linearity=LINEAR, batch=_batch_diagonal, shape_rule=diagonal_of,
    vjps=(lambda g, out, x, offset, axis1, axis2: embed_diagonal(
        g, shape=shape_of(x), offset=offset, axis1=axis1, axis2=axis2),))
# Generated code defines ``_embed_diagonal`` from this module's own source, so
# it runs the same lines as eager evaluation.
embed_diagonal = Primitive(
    "embed_diagonal", lambda v, shape, offset, axis1, axis2:
        _embed_diagonal(np.asarray(v), shape, offset, axis1, axis2),
    reads=READS_NOTHING, source=_spell_embed_diagonal("np.diag"),
    array_api=_spell_embed_diagonal("_diag"), complex_rules=REAL_LINEAR, linearity=LINEAR,
    batch=_batch_embed_diagonal, helpers={"_embed_diagonal": inspect.getsource(_embed_diagonal)},
    shape_rule=embedded_diagonal,
    vjps=(lambda g, out, v, shape, offset, axis1, axis2: diagonal(
        g, offset=offset, axis1=axis1, axis2=axis2),))


@binds(np.diagonal, topic=LINEAR_ALGEBRA)
def _diagonal(a, offset=0, axis1=0, axis2=1):
    rank = array_rank(a)
    axis1, axis2 = one_axis(axis1, rank), one_axis(axis2, rank)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return diagonal(a, offset=int(offset), axis1=axis1, axis2=axis2)


@binds(np.linalg.diagonal, topic=LINEAR_ALGEBRA)
def _linalg_diagonal(x, /, *, offset=0):
    return _diagonal(x, offset, -2, -1)


@binds(np.diag, topic=LINEAR_ALGEBRA)
def _diag(v, k=0):
    """The diagonal of a matrix, or the square matrix with a vector on its diagonal."""
    shape = array_shape(v)
    if len(shape) == 2:
        return _diagonal(v, k, 0, 1)
    if len(shape) != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = shape[0] + abs(int(k))
    return embed_diagonal(v, shape=(n, n), offset=int(k), axis1=0, axis2=1)


# --- the Euclidean norm ---------------------------------------------------------

def safe_divide(x, y):
    """``x / y``, and 0 where ``y`` is 0, with no nan or inf in any derivative.

    ``y`` is replaced by 1 where it is 0 before dividing, so the branch that
    ``where`` discards never divides by zero, not even in a derivative.
    """
    zero = equal(y, 0)
    return where(zero, 0, x / where(zero, 1, y))


def _norm_vjp(g, out, x, axis, keepdims):
    if not keepdims:
        shape = kept_shape(shape_of(x), axis)
        g, out = reshape(g, shape=shape), reshape(out, shape=shape)
    return broadcast_to(g, shape=shape_of(x)) * safe_divide(x, out)


# ``axis`` is None (all axes, flattened), or a tuple of one or two
# non-negative axes (a vector norm, or the Frobenius norm of matrices).
# At zero the norm has no derivative; its rule gives 0 there, a subgradient.  For
# complex values ``g * x / |x|`` is TensorFlow's cotangent, as for ``abs``.
norm = Primitive("norm", lambda x, axis, keepdims: np.linalg.norm(x, axis=axis, keepdims=keepdims),
                 reads={0: (0, "out")}, source=call("np.linalg.norm", axis=None, keepdims=False),
                 array_api=call("xp.linalg.vector_norm", axis=None, keepdims=False),
                 complex_rules=AS_WRITTEN, batch=along_axes, shape_rule=reduction,
                 vjps=(_norm_vjp,))
