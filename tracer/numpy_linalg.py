"""How numpy's API on tensors maps to ``ir`` primitives: linear algebra.

``np.linalg`` (inverses, solves, determinants, decompositions, norms, powers),
``einsum`` and the matrix helpers (``inner``, ``kron``, ``cross``, ``trace``,
``diag``, ``diagonal``, ``triu``, ``tril``).  Functions with a primitive of
their own (``ir/primitives/linalg*.py``) apply it; the others are written
here with primitives and numpy calls on tensors, so their derivatives of
every order come from those.  Multi-result functions return named tuples
with numpy's field names (``sign, logabsdet = np.linalg.slogdet(a)``), one
primitive per field.  numpy 2's array-API spellings (``np.linalg.trace``,
``vecdot``, ...) map onto the same.  Complex matrices are welcome where the
rules hold for them (``inv``, ``solve``, ``det``, ``eig`` and the products);
the other decompositions and the norms refuse them.
"""

import collections
import string
import warnings

import numpy as np

from ir.primitives import linalg, linalg_decompositions as dec
from ir.primitives.broadcast import broadcast_to
from ir.primitives.reductions import kept_shape
from tracer.arguments import array_rank, array_shape, no_extras, normalize_axis, one_axis, plain
from tracer.core import NO_PARAMS, apply, wrap

SlogdetResult = collections.namedtuple("SlogdetResult", "sign logabsdet")
EighResult = collections.namedtuple("EighResult", "eigenvalues eigenvectors")
EigResult = collections.namedtuple("EigResult", "eigenvalues eigenvectors")
SVDResult = collections.namedtuple("SVDResult", "U S Vh")
QRResult = collections.namedtuple("QRResult", "Q R")


def _real(name, *arrays):
    for a in arrays:
        if np.result_type(plain(a)).kind == "c":
            raise TypeError(
                f"np.linalg.{name} on complex tensors: tapegen's derivative rules for it are "
                "for real matrices only; split the problem into real and imaginary parts "
                "(a real matrix of twice the size) or compute it outside the tape")


def _matrices(name, a, square=True, complex_ok=False):
    """Check that ``a`` is a (stack of) matrices, square if ``square``, real unless
    ``complex_ok`` (the rules of holomorphic functions hold for complex ones)."""
    if not complex_ok:
        _real(name, a)
    shape = array_shape(a)
    if len(shape) < 2 or (square and shape[-1] != shape[-2]):
        need = "square matrices" if square else "matrices"
        raise np.linalg.LinAlgError(
            f"np.linalg.{name} needs {need} in the last two axes, got shape {tuple(shape)}")


def _swap_last(a):
    return np.swapaxes(a, -1, -2)


# --- inverses, solves, determinants -------------------------------------------

def _inv(a):
    _matrices("inv", a, complex_ok=True)
    return apply(dec.inv, (a,), NO_PARAMS)


def _det(a):
    _matrices("det", a, complex_ok=True)
    return apply(dec.det, (a,), NO_PARAMS)


def _solve(a, b):
    _matrices("solve", a, complex_ok=True)
    return apply(dec.solve, (a, b), NO_PARAMS)


def _slogdet(a):
    _matrices("slogdet", a)
    return SlogdetResult(apply(dec.slogdet_sign, (a,), NO_PARAMS),
                         apply(dec.logabsdet, (a,), NO_PARAMS))


def _pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    if rcond is not None or rtol is not np._NoValue or hermitian:
        raise TypeError("np.linalg.pinv(..., rcond=, rtol=, hermitian=) on tracer tensors: "
                        "only numpy's default cut-off is supported; call np.linalg.pinv(a)")
    _matrices("pinv", a, square=False)
    return apply(dec.pinv, (a,), {"rtol": dec.PINV_RTOL})


def _matrix_power(a, n):
    """Repeated squaring with ``matmul``; ``n < 0`` powers the inverse."""
    _matrices("matrix_power", a, complex_ok=True)
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
    _matrices("lstsq", a, square=False)
    _real("lstsq", b)
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
        _matrices("cond", x, square=False)
        values = _svdvals(x)
        largest, smallest = values[..., 0], values[..., -1]
        return smallest / largest if p == -2 else largest / smallest
    _matrices("cond", x)
    return _norm(x, p, axis=(-2, -1)) * _norm(_inv(x), p, axis=(-2, -1))


# --- decompositions -------------------------------------------------------------

def _cholesky(a, /, *, upper=False):
    _matrices("cholesky", a)
    if upper:
        return _swap_last(apply(dec.cholesky, (_swap_last(a),), NO_PARAMS))
    return apply(dec.cholesky, (a,), NO_PARAMS)


def _lower(name, a, UPLO):
    """eigh reads the lower triangle; the upper one of ``a`` is the lower one of its transpose."""
    if UPLO not in ("L", "U", "l", "u"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    _matrices(name, a)
    return a if UPLO in ("L", "l") else _swap_last(a)


def _eigh(a, UPLO="L"):
    a = _lower("eigh", a, UPLO)
    return EighResult(apply(dec.eigvalsh, (a,), NO_PARAMS),
                      apply(dec.eigh_vectors, (a,), NO_PARAMS))


def _eigvalsh(a, UPLO="L"):
    return apply(dec.eigvalsh, (_lower("eigvalsh", a, UPLO),), NO_PARAMS)


def _eig(a):
    """Always complex results: numpy's are real when every eigenvalue is, a type
    that would depend on the values."""
    _matrices("eig", a, complex_ok=True)
    return EigResult(apply(dec.eig_values, (a,), NO_PARAMS),
                     apply(dec.eig_vectors, (a,), NO_PARAMS))


def _eigvals(a):
    _matrices("eigvals", a, complex_ok=True)
    return apply(dec.eig_values, (a,), NO_PARAMS)


def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    _matrices("svd", a, square=False)
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
    _matrices("qr", a, square=False)
    rows, cols = array_shape(a)[-2:]
    if mode == "r":
        return apply(dec.qr_r, (a,), NO_PARAMS)
    if mode not in ("reduced", "complete") or (mode == "complete" and rows > cols):
        raise TypeError(
            f"np.linalg.qr(a, mode={mode!r}) on tracer tensors is not supported: the extra "
            "columns of a complete Q, and the raw LAPACK output, have no derivative rule; use "
            "mode='reduced' or mode='r'")
    return QRResult(apply(dec.qr_q, (a,), NO_PARAMS), apply(dec.qr_r, (a,), NO_PARAMS))


# --- norms ----------------------------------------------------------------------

def _norm(x, ord=None, axis=None, keepdims=False):
    _real("norm", x)
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
        return np.sum((x != 0).astype(plain(x).dtype), axis=axis)
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
        values = apply(dec.svdvals, (np.moveaxis(x, axes, (-2, -1)),), NO_PARAMS)
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
    size = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    result = _norm(np.reshape(together, array_shape(together)[:kept] + (size,)), ord=ord,
                   axis=-1)
    return np.reshape(result, kept_shape(shape, axes)) if keepdims else result


# --- einsum ------------------------------------------------------------------------

def _einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    """``np.einsum``, in the normal form of the ``einsum`` primitive: ellipses as
    letters, operands broadcast per letter, diagonals taken with ``diagonal``, and
    letters of one operand alone summed with ``sum``.  ``optimize`` is accepted and
    ignored: the primitive always lets numpy choose the contraction order."""
    no_extras("einsum", out=out, dtype=dtype)
    if order != "K" or casting != "safe":
        raise TypeError("np.einsum(..., order=, casting=) is not supported on tracer tensors")
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], list(operands[1:])
    else:
        subscripts, arrays = _from_sublists(operands)
    inputs, output = _explicit(subscripts, [array_rank(a) for a in arrays])
    arrays = _broadcast_letters(arrays, inputs)
    for k in range(len(arrays)):
        arrays[k], inputs[k] = _take_diagonals(arrays[k], inputs[k])
    for k in range(len(arrays)):
        elsewhere = set(output).union(*(s for j, s in enumerate(inputs) if j != k))
        alone = tuple(i for i, c in enumerate(inputs[k]) if c not in elsewhere)
        if alone:
            arrays[k] = np.sum(arrays[k], axis=alone)
            inputs[k] = "".join(c for c in inputs[k] if c in elsewhere)
    if len(arrays) == 1 and inputs[0] == output:
        return arrays[0]
    return apply(linalg.einsum, tuple(arrays),
                 {"subscripts": ",".join(inputs) + "->" + output})


def _from_sublists(operands):
    """einsum(op0, sublist0, op1, sublist1, ..., [sublistout]) as a subscripts string."""
    def letters(sublist):
        return "".join("..." if s is Ellipsis else string.ascii_letters[s] for s in sublist)
    arrays, subs = list(operands[0::2]), list(operands[1::2])
    explicit = len(operands) % 2 == 1
    if explicit:
        arrays.pop()
        return ",".join(map(letters, subs)) + "->" + letters(operands[-1]), arrays
    return ",".join(map(letters, subs)), arrays


def _explicit(subscripts, ranks):
    """Input subscripts (one string per operand) and output subscripts, with ellipses
    written as letters and the implicit output made explicit."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    inputs = inputs.split(",")
    if len(inputs) != len(ranks):
        raise ValueError("more operands provided to einstein sum function than specified in "
                         "the subscripts string" if len(ranks) > len(inputs) else
                         "fewer operands provided to einstein sum function than specified "
                         "in the subscripts string")
    named = set("".join(inputs).replace(".", ""))
    unused = [c for c in string.ascii_letters if c not in named]
    spans = [rank - len(s.replace("...", "")) if "..." in s else 0
             for s, rank in zip(inputs, ranks)]
    broadcast = "".join(unused[:max(spans, default=0)])
    inputs = [s.replace("...", broadcast[len(broadcast) - span:] if span else "")
              for s, span in zip(inputs, spans)]
    if not arrow:
        counts = collections.Counter("".join(inputs))
        once = sorted(c for c, n in counts.items() if n == 1 and c not in broadcast)
        return inputs, broadcast + "".join(once)
    if "..." in output:
        return inputs, output.replace("...", broadcast)
    if broadcast:
        raise ValueError("output has more dimensions than subscripts given in einstein sum, "
                         "but no '...' ellipsis provided to broadcast the extra dimensions.")
    return inputs, output


def _broadcast_letters(arrays, inputs):
    """Operands broadcast so that each letter has one size (numpy stretches sizes of 1)."""
    sizes = {}
    for a, subs in zip(arrays, inputs):
        for c, d in zip(subs, array_shape(a)):
            # Any size but 1 wins, 0 included; numpy refuses two such sizes that differ.
            sizes[c] = d if sizes.get(c, 1) == 1 else sizes[c]
    out = []
    for a, subs in zip(arrays, inputs):
        shape = tuple(sizes[c] for c in subs)
        if tuple(array_shape(a)) != shape:
            a = apply(broadcast_to, (a,), {"shape": shape})
        out.append(a)
    return out


def _take_diagonals(array, subs):
    """An operand with a letter repeated (``"ii"``) as its diagonal, letter once, at the end."""
    for c in subs:
        first = subs.find(c)
        second = subs.find(c, first + 1)
        if second >= 0:
            array = apply(linalg.diagonal, (array,),
                          {"offset": 0, "axis1": first, "axis2": second})
            rest = subs[:first] + subs[first + 1:second] + subs[second + 1:]
            return _take_diagonals(array, rest + c)
    return array, subs


# --- products -----------------------------------------------------------------------

def _inner(a, b):
    if array_rank(a) == 0 or array_rank(b) == 0:
        return a * b
    axes = ((array_rank(a) - 1,), (array_rank(b) - 1,))
    return apply(linalg.tensordot, (a, b), {"axes": axes})


def _kron(a, b):
    """Every product ``a[i] * b[j]`` with their axes interleaved, then merged pairwise."""
    a_shape, b_shape = array_shape(a), array_shape(b)
    rank = max(len(a_shape), len(b_shape))
    a_shape = (1,) * (rank - len(a_shape)) + tuple(a_shape)
    b_shape = (1,) * (rank - len(b_shape)) + tuple(b_shape)
    a_spread = np.reshape(a, [d for n in a_shape for d in (n, 1)])
    b_spread = np.reshape(b, [d for n in b_shape for d in (1, n)])
    return np.reshape(a_spread * b_spread, [m * n for m, n in zip(a_shape, b_shape)])


def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    a = np.moveaxis(a, axisa, -1)
    b = np.moveaxis(b, axisb, -1)
    sizes = (array_shape(a)[-1], array_shape(b)[-1])
    if any(n not in (2, 3) for n in sizes):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2] if sizes[0] == 3 else 0.0
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2] if sizes[1] == 3 else 0.0
    if 2 in sizes:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=3)
    z = a0 * b1 - a1 * b0
    if sizes == (2, 2):
        return z
    parts = [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z]
    shape = np.broadcast_shapes(*(array_shape(p) for p in parts))
    c = np.stack([np.broadcast_to(p, shape) for p in parts], axis=-1)
    return np.moveaxis(c, -1, axisc)


# --- diagonals and triangles -----------------------------------------------------------

def _diagonal(a, offset=0, axis1=0, axis2=1):
    rank = array_rank(a)
    axis1, axis2 = one_axis(axis1, rank), one_axis(axis2, rank)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return apply(linalg.diagonal, (a,), {"offset": int(offset), "axis1": axis1, "axis2": axis2})


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    no_extras("trace", dtype=dtype, out=out)
    return np.sum(_diagonal(a, offset, axis1, axis2), axis=-1)


def _diag(v, k=0):
    shape = array_shape(v)
    if len(shape) == 2:
        return _diagonal(v, k, 0, 1)
    if len(shape) != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = shape[0] + abs(int(k))
    return apply(linalg.embed_diagonal, (v,),
                 {"shape": (n, n), "offset": int(k), "axis1": 0, "axis2": 1})


def _triangle(prim):
    def mask(m, k=0):
        shape = array_shape(m)
        if len(shape) == 1:
            m = np.broadcast_to(m, (shape[0], shape[0]))
        return apply(prim, (m,), {"k": int(k)})
    return mask


# --- numpy 2's array-API spellings in np.linalg ----------------------------------------

def _linalg_trace(x, /, *, offset=0, dtype=None):
    return _trace(x, offset, -2, -1, dtype)


def _linalg_diagonal(x, /, *, offset=0):
    return _diagonal(x, offset, -2, -1)


def _linalg_outer(x1, x2, /):
    if array_rank(x1) != 1 or array_rank(x2) != 1:
        raise ValueError("np.linalg.outer takes 1-dimensional arrays; use np.outer or "
                         "np.multiply.outer for others")
    return np.outer(x1, x2)


def _linalg_cross(x1, x2, /, *, axis=-1):
    if array_shape(x1)[axis] != 3 or array_shape(x2)[axis] != 3:
        raise ValueError("np.linalg.cross takes 3-dimensional vectors; use np.cross for "
                         "2-dimensional ones")
    return _cross(x1, x2, axis=axis)


def _vecdot(x1, x2, /, *, axis=-1):
    _real("vecdot", x1, x2)
    return np.sum(x1 * x2, axis=axis)


def _multi_dot(arrays, *, out=None):
    """Products from left to right (numpy may choose another order: rounding can differ)."""
    no_extras("linalg.multi_dot", out=out)
    arrays = list(arrays)
    first, last = array_rank(arrays[0]) == 1, array_rank(arrays[-1]) == 1
    if first:
        arrays[0] = np.reshape(arrays[0], (1, -1))
    if last:
        arrays[-1] = np.reshape(arrays[-1], (-1, 1))
    result = arrays[0]
    for a in arrays[1:]:
        result = np.matmul(result, a)
    if first or last:
        shape = array_shape(result)
        return np.reshape(result, shape[1 if first else 0:len(shape) - (1 if last else 0)])
    return result


FUNCTIONS = {
    np.linalg.inv: _inv, np.linalg.solve: _solve, np.linalg.det: _det,
    np.linalg.slogdet: _slogdet, np.linalg.pinv: _pinv, np.linalg.matrix_power: _matrix_power,
    np.linalg.lstsq: _lstsq, np.linalg.cond: _cond,
    np.linalg.cholesky: _cholesky, np.linalg.eigh: _eigh, np.linalg.eigvalsh: _eigvalsh,
    np.linalg.eig: _eig, np.linalg.eigvals: _eigvals,
    np.linalg.svd: _svd, np.linalg.svdvals: _svdvals, np.linalg.qr: _qr,
    np.linalg.norm: _norm, np.linalg.matrix_norm: _matrix_norm_api,
    np.linalg.vector_norm: _vector_norm_api,
    np.einsum: _einsum, np.inner: _inner, np.kron: _kron, np.cross: _cross,
    np.trace: _trace, np.diag: _diag, np.diagonal: _diagonal,
    np.triu: _triangle(linalg.triu), np.tril: _triangle(linalg.tril),
    np.linalg.trace: _linalg_trace, np.linalg.diagonal: _linalg_diagonal,
    np.linalg.outer: _linalg_outer, np.linalg.cross: _linalg_cross,
    np.linalg.matmul: lambda x1, x2, /: np.matmul(x1, x2),
    np.linalg.tensordot: lambda x1, x2, /, *, axes=2: np.tensordot(x1, x2, axes=axes),
    np.linalg.vecdot: _vecdot, np.linalg.multi_dot: _multi_dot,
}
UFUNCS = {}
