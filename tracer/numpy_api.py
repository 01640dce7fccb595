"""How numpy's API on tensors maps to ``ir`` primitives.

``array_ufunc`` and ``array_function`` are the tensors' ``__array_ufunc__``
and ``__array_function__``.  A numpy function with no mapping here raises
``UnsupportedOperation`` (naming the function and the user's line) when a
tape tracks one of its inputs; otherwise it runs on the plain values, and is
recorded as a call when it reads recorded integer or boolean values
(``tracer.numpy_calls``).
"""

import numpy as np

from ir.primitives import broadcast, control, elementwise as ew, linalg, reductions
from ir.primitives import shape as shape_ops
from ir.primitives.shape import IndexArg
from tracer.arguments import (along_axis, array_rank, array_shape, no_extras, normalize_axis,
                              one_axis, plain)
from tracer import numpy_calls, numpy_fft, numpy_linalg, numpy_shapes, numpy_special
from tracer.numpy_ufuncs import UFUNCS
from tracer.core import (NO_PARAMS, Tensor, apply, as_operand, flat_leaves, is_traced, tracks_any,
                         value_of, wrap)
from tracer.numpy_common import at_least, at_least_all, split
from tracer.sites import described_site, user_site
from tracer.errors import UnsupportedOperation

def array_ufunc(ufunc, method, inputs, kwargs):
    """What ``Tensor.__array_ufunc__`` does with anything but a plain call of a mapped ufunc.

    ``np.divmod``, with two results, is its two mapped ufuncs.
    """
    if ufunc is np.divmod and method == "__call__" and not kwargs:
        return np.floor_divide(*inputs), np.remainder(*inputs)
    prim = UFUNCS.get(ufunc)
    if method == "__call__" and prim is not None and set(kwargs) <= {"out", "where", "dtype"}:
        raise TypeError(
            f"np.{ufunc.__name__}(..., {', '.join(f'{k}=' for k in kwargs)}) on a tracer.Tensor: "
            "tensors are immutable and calls are recorded whole, so out=, where= and dtype= "
            "are not supported; use the returned value (and np.where or .astype) instead")
    name = (f"np.{ufunc.__name__}" if getattr(np, ufunc.__name__, None) is ufunc
            else f"the ufunc {ufunc.__name__}") + ("" if method == "__call__" else f".{method}")
    return _unsupported(name, ufunc if method == "__call__" else getattr(ufunc, method),
                        inputs, kwargs)


def array_function(func, args, kwargs):
    """``Tensor.__array_function__``: numpy functions that have a mapping here."""
    handler = FUNCTIONS.get(func)
    if handler is not None:
        return handler(*args, **kwargs)
    name = _public_name(func)
    if func in PLAIN_FUNCTIONS:
        return numpy_calls.call(func, name, args, kwargs, answers=True,
                                no_gradient=func in VALUE_ANSWERS)
    return _unsupported(name, func, args, kwargs)


def _public_name(func):
    """``np.unique``, ``np.linalg.matrix_rank``: how users (and generated code) call ``func``."""
    module = getattr(func, "__module__", "") or ""
    if module.startswith("numpy.") and not module.startswith("numpy._"):
        return f"{module.replace('numpy', 'np', 1)}.{func.__name__}"
    return f"np.{func.__name__}"


def _unsupported(name, function, args, kwargs):
    """``function`` on plain values (recorded if it reads recorded integer or boolean
    values), or an error naming it when a tape needs its derivative."""
    if tracks_any(flat_leaves(args, kwargs)):
        raise UnsupportedOperation(
            f"{name} has no derivative rule in tapegen{described_site(user_site())}, and a tape "
            "is recording one of its inputs. Compute it outside the tape (or under "
            "tape.stop_recording()) if no gradient should flow through it, or define its "
            "derivative with tracer.custom_gradient.")
    return numpy_calls.call(function, name, args, kwargs)


# --- reductions -------------------------------------------------------------

def _reduction(prim, name):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        no_extras(name, dtype=dtype, out=out, initial=initial, where=where)
        axes = normalize_axis(axis, array_rank(a))
        return apply(prim, (a,), {"axis": axes, "keepdims": bool(keepdims)})
    return reduce


def _extremum(prim, name):
    """np.max and np.min take no ``dtype``: their third positional argument is ``out``."""
    reduce = _reduction(prim, name)

    def extremum(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        return reduce(a, axis, out=out, keepdims=keepdims, initial=initial, where=where)
    return extremum


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    no_extras("mean", dtype=dtype, out=out, where=where)
    return apply(reductions.mean, (a,), {"axis": normalize_axis(axis, array_rank(a)),
                                         "keepdims": bool(keepdims)})


def _position(prim):
    def position(a, axis=None, out=None, *, keepdims=False):
        no_extras(prim.name, out=out)
        axis = None if axis is None else one_axis(axis, array_rank(a))
        return apply(prim, (a,), {"axis": axis, "keepdims": bool(keepdims)})
    return position


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
         correction=None):
    no_extras("var", dtype=dtype, out=out, where=where, mean=mean)
    if correction is not None:
        ddof = correction
    axes = normalize_axis(axis, array_rank(a))
    centered = a - _mean(a, axis=axes, keepdims=True)
    # As numpy: complex values vary by mean(|x - mean(x)|**2), a real number.
    squares = (np.real(centered * np.conj(centered)) if np.iscomplexobj(a)
               else centered * centered)
    count = reductions.reduced_size(array_shape(a), axes)
    total = apply(reductions.sum_, (squares,), {"axis": axes, "keepdims": bool(keepdims)})
    return total / max(count - ddof, 0)


def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
         correction=None):
    return np.sqrt(_var(a, axis, dtype, out, ddof, keepdims, where, mean, correction))


# --- products ---------------------------------------------------------------

def _dot(a, b, out=None):
    no_extras("dot", out=out)
    a_rank, b_rank = array_rank(a), array_rank(b)
    if a_rank == 0 or b_rank == 0:
        return a * b
    if a_rank <= 2 and b_rank <= 2:
        return apply(linalg.matmul, (a, b), NO_PARAMS)
    b_axis = b_rank - 2 if b_rank >= 2 else 0
    return apply(linalg.tensordot, (a, b), {"axes": ((a_rank - 1,), (b_axis,))})


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


def _tensordot(a, b, axes=2):
    axes = normalize_tensordot_axes(axes, array_rank(a), array_rank(b))
    return apply(linalg.tensordot, (a, b), {"axes": axes})


def _matmul(a, b, out=None, **kwargs):
    no_extras("matmul", out=out, **kwargs)
    return apply(linalg.matmul, (a, b), NO_PARAMS)


def _outer(a, b, out=None):
    no_extras("outer", out=out)
    return _reshape(a, (-1, 1)) * _reshape(b, (1, -1))


# --- shapes -----------------------------------------------------------------

def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise TypeError("np.reshape on tracer tensors supports only order='C'")
    shape = newshape if shape is None else shape
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    target = np.empty(array_shape(a), dtype=np.bool_).reshape(shape).shape if -1 in shape else shape
    if tuple(target) == tuple(array_shape(a)):
        return a
    return apply(shape_ops.reshape, (a,), {"shape": tuple(target)})


def _ravel(a, order="C"):
    return _reshape(a, (-1,), order)


def _transpose(a, axes=None):
    rank = array_rank(a)
    axes = (tuple(reversed(range(rank))) if axes is None
            else tuple(one_axis(i, rank) for i in axes))
    if sorted(axes) != list(range(rank)):
        raise ValueError(f"np.transpose: axes {axes} don't match an array of rank {rank}")
    if axes == tuple(range(rank)):
        return a
    return apply(shape_ops.transpose, (a,), {"axes": axes})


def _swapaxes(a, axis1, axis2):
    rank = array_rank(a)
    axes = list(range(rank))
    i, j = one_axis(axis1, rank), one_axis(axis2, rank)
    axes[i], axes[j] = axes[j], axes[i]
    return _transpose(a, axes)


def _moveaxis(a, source, destination):
    rank = array_rank(a)
    source = [one_axis(s, rank) for s in np.atleast_1d(source)]
    destination = [one_axis(d, rank) for d in np.atleast_1d(destination)]
    order = [n for n in range(rank) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return _transpose(a, order)


def _expand_dims(a, axis):
    shape = list(array_shape(a))
    axes = normalize_axis(axis, len(shape) + (1 if isinstance(axis, (int, np.integer)) else len(axis)))
    for ax in axes:
        shape.insert(ax, 1)
    return _reshape(a, shape)


def _squeeze(a, axis=None):
    shape = array_shape(a)
    axes = normalize_axis(axis, len(shape))
    if axes is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    for ax in axes:
        if shape[ax] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return _reshape(a, [d for i, d in enumerate(shape) if i not in axes])


def _broadcast_to(array, shape, subok=False):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if tuple(array_shape(array)) == shape:
        return array
    np.broadcast_shapes(array_shape(array), shape)
    return apply(broadcast.broadcast_to, (array,), {"shape": shape})


def _concatenate(arrays, axis=0, out=None, dtype=None, casting=None):
    no_extras("concatenate", out=out, dtype=dtype, casting=casting)
    arrays = [as_operand(a) for a in arrays]
    if axis is None:
        arrays = [_ravel(a) for a in arrays]
        axis = 0
    axis = one_axis(axis, array_rank(arrays[0]))
    return apply(shape_ops.concatenate, tuple(arrays), {"axis": axis})


def _stack(arrays, axis=0, out=None, dtype=None, casting=None):
    no_extras("stack", out=out, dtype=dtype, casting=casting)
    arrays = [as_operand(a) for a in arrays]
    axis = one_axis(axis, array_rank(arrays[0]) + 1)
    return apply(shape_ops.stack, tuple(arrays), {"axis": axis})


def _hstack(tup, dtype=None, casting=None):
    arrays = [at_least(a, 1) for a in tup]
    return _concatenate(arrays, axis=0 if array_rank(arrays[0]) == 1 else 1)


def _vstack(tup, dtype=None, casting=None):
    arrays = [at_least(a, 2) for a in tup]
    return _concatenate(arrays, axis=0)


def _split(ary, indices_or_sections, axis=0):
    return split(ary, indices_or_sections, axis, equal=True)


def _take(a, indices, axis=None, out=None, mode="raise"):
    no_extras("take", out=out)
    if mode != "raise":
        raise TypeError("np.take on tracer tensors supports only mode='raise'")
    indices = np.asarray(plain(indices))
    a, axis = along_axis(a, axis)
    return apply(shape_ops.getitem, (a, indices), {"key": (slice(None),) * axis + (IndexArg(0),)})


def _astype(x, dtype, /, *, copy=True, device=None):
    dtype = np.dtype(dtype)
    if plain(x).dtype == dtype:
        return x
    return apply(shape_ops.cast, (x,), {"dtype": dtype})


def _copy(a, order="K", subok=False):
    return a


# --- selection and rounding -------------------------------------------------

def _where(condition, x=None, y=None):
    if x is None and y is None:
        return np.where(plain(condition))
    return apply(ew.where, (condition, x, y), NO_PARAMS)


def _clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue,
          max=np._NoValue, **kwargs):
    no_extras("clip", out=out)
    low = a_min if a_min is not np._NoValue else min
    high = a_max if a_max is not np._NoValue else max
    low = -np.inf if low is np._NoValue or low is None else low
    high = np.inf if high is np._NoValue or high is None else high
    return apply(ew.clip, (a, low, high), NO_PARAMS)


def _round(a, decimals=0, out=None):
    no_extras("round", out=out)
    return apply(ew.round_, (a,), {"decimals": int(decimals)})


def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    no_extras("argsort", order=order)
    a, axis = along_axis(a, axis)
    return apply(reductions.argsort, (a,), {"axis": axis})


def _argpartition(a, kth, axis=-1, kind="introselect", order=None):
    no_extras("argpartition", order=order)
    kth = kth if isinstance(kth, (int, np.integer)) else tuple(int(k) for k in kth)
    a, axis = along_axis(a, axis)
    return apply(reductions.argpartition, (a,), {"kth": kth, "axis": axis})


def _nonzero(a):
    """One recorded array of positions per axis, so code generated from the graph
    recomputes them (they are never differentiated)."""
    return tuple(apply(reductions.nonzero, (a,), {"axis": k}) for k in range(array_rank(a)))


def _flatnonzero(a):
    return apply(reductions.flatnonzero, (a,), NO_PARAMS)


def _searchsorted(a, v, side="left", sorter=None):
    no_extras("searchsorted", sorter=sorter)
    return apply(reductions.searchsorted, (a, v), {"side": side})


def _fix(x, out=None):
    no_extras("fix", out=out)
    return apply(ew.trunc, (x,), NO_PARAMS)


def _sinc(x):
    return apply(ew.sinc, (x,), NO_PARAMS)


def _i0(x):
    return apply(ew.i0, (x,), NO_PARAMS)


def _like(fill):
    def make(a, *args, **kwargs):
        return wrap(np.asarray(fill(plain(a), *args, **kwargs)))
    return make


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    dtype = np.dtype(dtype) if dtype is not None else plain(a).dtype
    shape = array_shape(a) if shape is None else shape
    if is_traced(fill_value):
        return _broadcast_to(_astype(fill_value, dtype), shape)
    return wrap(np.full(shape, fill_value, dtype=dtype))


def stop_gradient(x):
    """``x`` unchanged, but no gradient flows back through it."""
    return apply(control.stop_gradient, (x,), NO_PARAMS)


FUNCTIONS = {
    np.sum: _reduction(reductions.sum_, "sum"),
    np.prod: _reduction(reductions.prod, "prod"),
    np.max: _extremum(reductions.max_, "max"),
    np.amax: _extremum(reductions.max_, "amax"),
    np.min: _extremum(reductions.min_, "min"),
    np.amin: _extremum(reductions.min_, "amin"),
    np.argmax: _position(reductions.argmax), np.argmin: _position(reductions.argmin),
    np.mean: _mean, np.var: _var, np.std: _std,
    np.dot: _dot, np.matmul: _matmul, np.tensordot: _tensordot, np.outer: _outer,
    np.reshape: _reshape, np.ravel: _ravel, np.transpose: _transpose,
    np.swapaxes: _swapaxes, np.moveaxis: _moveaxis, np.expand_dims: _expand_dims,
    np.squeeze: _squeeze, np.broadcast_to: _broadcast_to, np.concatenate: _concatenate,
    np.stack: _stack, np.hstack: _hstack, np.vstack: _vstack, np.split: _split,
    np.atleast_1d: at_least_all(1), np.take: _take, np.astype: _astype, np.copy: _copy,
    np.where: _where, np.clip: _clip, np.round: _round, np.around: _round, np.fix: _fix,
    np.sinc: _sinc, np.i0: _i0,
    np.argsort: _argsort, np.argpartition: _argpartition, np.nonzero: _nonzero,
    np.flatnonzero: _flatnonzero, np.searchsorted: _searchsorted,
    np.zeros_like: _like(np.zeros_like), np.ones_like: _like(np.ones_like),
    np.empty_like: _like(np.zeros_like), np.full_like: _full_like,
}



def _merge(tables):
    merged = {}
    for table in tables:
        twice = set(merged) & set(table)
        if twice:
            raise AssertionError(f"numpy functions mapped twice: {sorted(map(str, twice))}")
        merged.update(table)
    return merged


_FAMILIES = (numpy_linalg, numpy_shapes, numpy_fft, numpy_special)
FUNCTIONS = _merge([FUNCTIONS] + [family.FUNCTIONS for family in _FAMILIES])
UFUNCS = _merge([UFUNCS] + [family.UFUNCS for family in _FAMILIES])

_NO_GRADIENT_FUNCTIONS = {
    np.argmax: reductions.argmax, np.argmin: reductions.argmin, np.argsort: reductions.argsort,
    np.argpartition: reductions.argpartition, np.nonzero: reductions.nonzero,
    np.flatnonzero: reductions.flatnonzero, np.searchsorted: reductions.searchsorted,
    np.round: ew.round_, np.around: ew.round_, np.fix: ew.trunc,
}
"""numpy functions without a gradient that apply one primitive (the primitive says why)."""
_NO_GRADIENT_UFUNCS = (
    np.floor, np.ceil, np.trunc, np.rint, np.isfinite, np.isinf, np.isnan, np.greater,
    np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal, np.logical_and,
    np.logical_or, np.logical_xor, np.logical_not, np.bitwise_and, np.bitwise_or,
    np.bitwise_xor, np.invert)
"""Mapped ufuncs without a gradient listed as such (np.floor_divide, also piecewise
constant, is arithmetic users expect among the core functions)."""

NON_DIFFERENTIABLE = {
    **{func: prim.no_gradient for func, prim in _NO_GRADIENT_FUNCTIONS.items()},
    **{func: UFUNCS[func].no_gradient for func in _NO_GRADIENT_UFUNCS},
    np.isreal: "returns booleans", np.iscomplex: "returns booleans",
    np.linalg.matrix_rank: "returns an integer",
}
"""numpy functions that compute as usual on tensors and carry no gradient (the
gradient through them is ``None``, as in TensorFlow), never an error: each with
the reason.  Those without a primitive are recorded as calls (``tracer.numpy_calls``)."""


def _call_without_gradient(func):
    """``func`` run on plain values; recorded as a call where it reads recorded values."""
    name = _public_name(func)

    def compute(*args, **kwargs):
        return numpy_calls.call(func, name, args, kwargs, no_gradient=True)
    return compute


FUNCTIONS.update({func: _call_without_gradient(func) for func in NON_DIFFERENTIABLE
                  if func not in FUNCTIONS and not isinstance(func, np.ufunc)})

PLAIN_FUNCTIONS = frozenset({
    np.shape, np.ndim, np.size, np.result_type, np.iscomplexobj, np.isrealobj,
    np.allclose, np.isclose, np.array_equal, np.array_equiv, np.count_nonzero, np.any, np.all,
    np.unique, np.array_repr, np.array_str, np.array2string, np.sort_complex, np.isscalar,
})
"""Functions that answer questions about values (shapes, comparisons of whole
arrays, printing): they run on plain values and return plain values, except
that arrays they compute from recorded integer or boolean values are recorded
(``tracer.numpy_calls``)."""

VALUE_ANSWERS = frozenset({np.any, np.all, np.count_nonzero, np.isclose})
"""Those of ``PLAIN_FUNCTIONS`` whose arrays of truths or counts follow any recorded value,
floating point too: those arrays are recorded (with no gradient), so that
``np.where(x.any(axis=0), ...)`` in generated code computes its mask again."""


def index_key(key):
    """Split a user's index into an ``ir`` key and the index arrays it uses."""
    if not isinstance(key, tuple):
        key = (key,)
    parts = []
    arrays = []
    for k in key:
        tensor = k if isinstance(k, Tensor) else None
        k = value_of(k)
        if k is None or k is Ellipsis or isinstance(k, slice):
            parts.append(_plain_slice(k) if isinstance(k, slice) else k)
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            parts.append(int(k))
        else:
            array = np.asarray(k)
            if array.dtype.kind not in "biu":
                raise IndexError("only integers, slices, ..., None and integer or boolean "
                                 f"arrays are valid indices (got {array.dtype} values)")
            # A mask selects what its nonzero() positions select; integer
            # positions keep the result's shape a function of the index shapes.
            # An integer tensor stays itself, so a graph keeps it as named data.
            if array.dtype.kind == "b" and array.ndim:
                indices = array.nonzero()
            else:
                indices = (array if tensor is None else tensor,)
            for index in indices:
                parts.append(IndexArg(len(arrays)))
                arrays.append(index)
    return tuple(parts), arrays


def _check_masks(x, key):
    """Raise numpy's own IndexError for a boolean mask that does not fit ``x``.

    Masks are recorded as their nonzero() positions, which would not notice.
    """
    parts = key if isinstance(key, tuple) else (key,)
    if any(np.asarray(value_of(k)).dtype == np.bool_ for k in parts
           if k is not None and k is not Ellipsis and not isinstance(k, slice)):
        probe = np.broadcast_to(np.zeros((), np.bool_), np.shape(value_of(x)))
        probe[tuple(value_of(k) for k in parts)]


def _plain_slice(s):
    def plain(v):
        return None if v is None else int(v)
    return slice(plain(s.start), plain(s.stop), plain(s.step))


def getitem(x, key):
    """``x[key]``: basic and advanced indexing, recorded as one ``getitem``."""
    _check_masks(x, key)
    key, arrays = index_key(key)
    return apply(shape_ops.getitem, (x, *arrays), {"key": key})
