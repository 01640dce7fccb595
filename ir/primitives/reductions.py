"""Reductions over axes: ``sum``, ``mean``, ``prod``, ``max``, ``min``, and the
gradient-free ``argmax`` and ``argmin``; scans along one axis (``cumsum``,
``cumprod``); sorting and partitioning with their gradient-free positions.

Every reduction takes ``axis`` (a tuple of non-negative ints, or ``None`` for
all axes) and ``keepdims``.  Rules first restore the reduced axes as size one
(``_keep``) and then broadcast back.  ``max``/``min`` split the gradient
equally among tied elements, as TensorFlow does.  Scans and sorts take one
``axis``, counted from the end (``-1`` is the last), so their rules hold
under extra leading axes.  The numpy functions that apply one of them are bound
beside it; order statistics composed of a sort and an index are ``tracer``'s.
"""

import numpy as np

from ir.sizes.traced import product
from ir.bindings import along_axis as numpy_along_axis
from ir.bindings import SHAPES, array_rank, binds, no_extras, normalize_axis, one_axis
from ir.autodiff.batching import Batched, along_axes, along_axis, first_batched_only, one_at_a_time
from ir.primitive import (LINEAR, READS_NOTHING, READS_X, REAL_LINEAR, Primitive, call, dtype_of,
                          method, shape_of)
from ir.primitives.broadcast import broadcast_to
from ir.primitives.elementwise import equal
from ir.primitives.gathers import scatter_add_along_axis
from ir.primitives.shape import call_along, cast, concatenate, getitem, pad, reshape, transpose
from ir.sizes.shape_rules import data_dependent, reduction, same_shape, second_shape


def kept_shape(shape, axis):
    """``shape`` with the reduced axes kept as size one."""
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else d for i, d in enumerate(shape))


def reduced_size(shape, axis):
    """How many elements each output element of a reduction summarises."""
    axes = range(len(shape)) if axis is None else axis
    return product(shape[i] for i in axes)


def _keep(value, x, axis, keepdims):
    """A reduction's cotangent or output, reshaped so it broadcasts against ``x``."""
    if keepdims:
        return value
    return reshape(value, shape=kept_shape(shape_of(x), axis))


def _spread(value, x, axis, keepdims):
    return broadcast_to(_keep(value, x, axis, keepdims), shape=shape_of(x))


def _reduction(name, impl, reads, **kinds):
    return Primitive(name, lambda x, axis, keepdims: impl(x, axis=axis, keepdims=keepdims),
                     reads=reads, source=method(name, axis=None, keepdims=False),
                     batch=along_axes, **kinds, shape_rule=reduction)


sum_ = _reduction("sum", np.sum, reads=READS_NOTHING, complex_rules=REAL_LINEAR,
                  linearity=LINEAR, value_name="total",
                  vjps=(lambda g, out, x, axis, keepdims: _spread(g, x, axis, keepdims),))
mean = _reduction("mean", np.mean, reads=READS_NOTHING,
                  complex_rules=REAL_LINEAR, linearity=LINEAR,
                  vjps=(lambda g, out, x, axis, keepdims:
                        _spread(g / reduced_size(shape_of(x), axis), x, axis, keepdims),))


def _numpy_reduction(prim, name):
    """numpy's signature of a reduction, applying ``prim``."""
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        no_extras(name, dtype=dtype, out=out, initial=initial, where=where)
        axes = None if axis is None else normalize_axis(axis, array_rank(a))
        return prim(a, axis=axes, keepdims=bool(keepdims))
    return reduce


binds(np.sum)(_numpy_reduction(sum_, "sum"))


@binds(np.mean)
def _mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    no_extras("mean", dtype=dtype, out=out, where=where)
    return mean(a, axis=normalize_axis(axis, array_rank(a)), keepdims=bool(keepdims))


# --- scans ------------------------------------------------------------------

def _key_along(axis, ndim, index):
    """The key that indexes axis ``axis`` (counted from the end) with ``index``."""
    return (Ellipsis, index) + (slice(None),) * (-1 - axis)


def _slice(v, axis, start=None, stop=None, step=None):
    return getitem(v, key=_key_along(axis, len(shape_of(v)), slice(start, stop, step)))


def _reverse(v, axis):
    return _slice(v, axis, step=-1)


def _shift(v, axis, fill):
    """``v`` moved one step along ``axis``: ``fill`` comes in first, the last element drops."""
    if shape_of(v)[axis] == 0:
        return v  # nothing to move (and padding would add an element)
    widths = [(0, 0)] * len(shape_of(v))
    widths[axis] = (1, 0)
    return pad(_slice(v, axis, stop=-1), pad_width=tuple(widths), constant_values=fill)


def _linear_recurrence(a, b, axis):
    """``s`` with ``s[0] = b[0]`` and ``s[m] = b[m] + a[m] * s[m - 1]`` along ``axis``.

    A log-depth scan over the affine maps ``s -> b + a * s``: multiplications,
    additions and slices only, so it divides by nothing and its own
    derivatives come from those primitives.
    """
    joined = axis % len(shape_of(b))
    n = shape_of(b)[axis]
    step = 1
    while step < n:
        # Each s[m] so far reaches back ``step`` elements; compose it with the map
        # ``step`` earlier to reach back twice as far.
        a_late = _slice(a, axis, start=step)
        b = concatenate(_slice(b, axis, stop=step),
                        _slice(b, axis, start=step) + a_late * _slice(b, axis, stop=-step),
                        axis=joined)
        if 2 * step < n:
            a = concatenate(_slice(a, axis, stop=step), a_late * _slice(a, axis, stop=-step),
                            axis=joined)
        step *= 2
    return b


cumsum = Primitive("cumsum", lambda x, axis: np.cumsum(x, axis=axis), reads=READS_NOTHING,
                   source=call_along("np.cumsum", default=None),
                   array_api=call_along("xp.cumulative_sum", default=None),
                   complex_rules=REAL_LINEAR, linearity=LINEAR, batch=along_axis,
                   shape_rule=same_shape,
                   vjps=(lambda g, out, x, axis:
                         _reverse(cumsum(_reverse(g, axis), axis=axis), axis),))


def _bind_scan(prim, function):
    """numpy's signature of a scan: ``axis=None`` runs along the flattened array, and the
    axis is counted from the end, so the rules hold under batch axes."""
    @binds(function, topic=SHAPES)
    def scan(a, axis=None, dtype=None, out=None):
        no_extras(prim.name, dtype=dtype, out=out)
        a, axis = numpy_along_axis(a, axis)
        return prim(a, axis=axis - array_rank(a))


_bind_scan(cumsum, np.cumsum)


def _cumprod_vjp(g, out, x, axis):
    # d out[j] / d x[i] is (x[0] ... x[i-1]) * (x[i+1] ... x[j]) for j >= i.  The first
    # factor is out shifted by one; summed against g, the second obeys
    # s[i] = g[i] + x[i+1] * s[i+1], a recurrence run from the end.  Dividing
    # out by x[i] instead would be shorter, and nan wherever x is zero.
    # Reversed, that is s[m] = g[m] + x[m-1] * s[m-1], the form _linear_recurrence solves.
    coefficients = _shift(_reverse(x, axis), axis, 0)
    after = _reverse(_linear_recurrence(coefficients, _reverse(g, axis), axis), axis)
    return _shift(out, axis, 1) * after


cumprod = Primitive("cumprod", lambda x, axis: np.cumprod(x, axis=axis), reads={0: (0, "out")},
                    source=call_along("np.cumprod", default=None),
                    array_api=call_along("xp.cumulative_prod", default=None), batch=along_axis,
                    shape_rule=same_shape, vjps=(_cumprod_vjp,))
_bind_scan(cumprod, np.cumprod)


# --- products and extrema -----------------------------------------------------

def _prod_vjp(g, out, x, axis, keepdims):
    # d prod / d x_i is the product of all the other elements.  prod / x_i
    # would be shorter but is nan at zeros, so take the product of the
    # elements before x_i times the product of those after it instead.
    shape = shape_of(x)
    reduced = range(len(shape)) if axis is None else axis
    kept = [i for i in range(len(shape)) if i not in reduced]
    order = kept + list(reduced)
    lined_up = transpose(x, axes=tuple(order))
    rows = reshape(lined_up, shape=tuple(shape[i] for i in kept) + (reduced_size(shape, axis),))
    before = _shift(cumprod(rows, axis=-1), -1, 1)
    after = _reverse(_shift(cumprod(_reverse(rows, -1), axis=-1), -1, 1), -1)
    others = reshape(before * after, shape=shape_of(lined_up))
    others = transpose(others, axes=tuple(int(i) for i in np.argsort(order)))
    return _spread(g, x, axis, keepdims) * others


prod = _reduction("prod", np.prod, reads=READS_X, vjps=(_prod_vjp,))
binds(np.prod)(_numpy_reduction(prod, "prod"))


def _extremum_vjp(g, out, x, axis, keepdims):
    # Counting ties in x's own dtype keeps a float32 gradient float32.
    chosen = cast(equal(x, _keep(out, x, axis, keepdims)), dtype=dtype_of(x))
    ties = sum_(chosen, axis=axis, keepdims=True)
    return _spread(g, x, axis, keepdims) * (chosen / ties)


max_ = _reduction("max", np.max, reads={0: (0, "out")}, value_name="largest",
                  vjps=(_extremum_vjp,))
min_ = _reduction("min", np.min, reads={0: (0, "out")}, value_name="smallest",
                  vjps=(_extremum_vjp,))


def _bind_extremum(prim, *functions):
    """np.max and np.min take no ``dtype``: their third positional argument is ``out``."""
    reduce = _numpy_reduction(prim, functions[0].__name__)

    @binds(*functions)
    def extremum(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        return reduce(a, axis, out=out, keepdims=keepdims, initial=initial, where=where)


_bind_extremum(max_, np.max, np.amax)
_bind_extremum(min_, np.min, np.amin)


@first_batched_only
def _batch_position(prim, args, params, size):
    """``axis=None`` means the flattened value."""
    x, axis = args[0], params["axis"]
    if axis is not None:
        return Batched(prim(x.value, **dict(params, axis=axis % x.ndim + 1)), size)
    if params.get("keepdims"):
        return one_at_a_time(prim, args, params, size)
    flat = reshape(x.value, shape=(size, product(x.shape)))
    return Batched(prim(flat, **dict(params, axis=1)), size)


def _position(name, impl):
    return Primitive(name, lambda x, axis, keepdims: impl(x, axis=axis, keepdims=keepdims),
                     no_gradient="returns integer positions", batch=_batch_position,
                     source=call(f"np.{name}", axis=None, keepdims=False), shape_rule=reduction)


# ``axis`` here is one non-negative int or None (flattened), as numpy's argmax takes.
argmax = _position("argmax", np.argmax)
argmin = _position("argmin", np.argmin)


def _bind_position(prim, function):
    @binds(function)
    def position(a, axis=None, out=None, *, keepdims=False):
        no_extras(prim.name, out=out)
        axis = None if axis is None else one_axis(axis, array_rank(a))
        return prim(a, axis=axis, keepdims=bool(keepdims))


_bind_position(argmax, np.argmax)
_bind_position(argmin, np.argmin)


# --- sorting ----------------------------------------------------------------
# The gradient of a sort or partition goes back through the permutation it
# applied: output position i passes its cotangent to the input element that
# landed there.  Among equal values, which one lands where is numpy's choice
# and has no effect on the values; the rules use a stable argsort, so tied
# values pass their cotangents in input order (the earlier input gets the
# earlier output position).  np.argpartition places elements exactly as
# np.partition does.

def _permutation_vjp(positions):
    def vjp(g, out, x, axis, **params):
        return scatter_add_along_axis(g, positions(x, axis=axis, **params), axis=axis,
                                      shape=shape_of(x))
    return vjp


argsort = Primitive("argsort", lambda x, axis: np.argsort(x, axis=axis, kind="stable"),
                    no_gradient="returns integer positions", batch=along_axis,
                    source=call_along("np.argsort", extra="kind='stable'"),
                    array_api=call_along("xp.argsort"), shape_rule=same_shape)


@binds(np.argsort)
def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    no_extras("argsort", order=order)
    a, axis = numpy_along_axis(a, axis)
    return argsort(a, axis=axis)


argpartition = Primitive("argpartition", lambda x, kth, axis: np.argpartition(x, kth, axis=axis),
                         no_gradient="returns integer positions", batch=along_axis,
                         source=call_along("np.argpartition", "kth"), shape_rule=same_shape)


@binds(np.argpartition)
def _argpartition(a, kth, axis=-1, kind="introselect", order=None):
    no_extras("argpartition", order=order)
    kth = kth if isinstance(kth, (int, np.integer)) else tuple(int(k) for k in kth)
    a, axis = numpy_along_axis(a, axis)
    return argpartition(a, kth=kth, axis=axis)


nonzero = Primitive("nonzero", lambda x, axis: np.nonzero(x)[axis],
                    no_gradient="returns integer positions",
                    source=lambda params, shapes: f"np.nonzero({{0}})[{params['axis']}]",
                    shape_rule=data_dependent)
"""One array of ``np.nonzero(x)``: the positions along ``axis``."""


@binds(np.nonzero)
def _nonzero(a):
    """One array of positions per axis, each a primitive's value, so code generated from
    a graph recomputes them (they are never differentiated)."""
    return tuple(nonzero(a, axis=k) for k in range(array_rank(a)))


flatnonzero = Primitive("flatnonzero", np.flatnonzero, no_gradient="returns integer positions",
                        source="np.flatnonzero({0})", shape_rule=data_dependent)


@binds(np.flatnonzero)
def _flatnonzero(a):
    return flatnonzero(a)


searchsorted = Primitive("searchsorted", lambda a, v, side: np.searchsorted(a, v, side=side),
                         no_gradient="returns integer positions",
                         source=call("np.searchsorted", side="left"), shape_rule=second_shape)


@binds(np.searchsorted)
def _searchsorted(a, v, side="left", sorter=None):
    no_extras("searchsorted", sorter=sorter)
    return searchsorted(a, v, side=side)


sort = Primitive("sort", lambda x, axis: np.sort(x, axis=axis), reads=READS_X,
                 source=call_along("np.sort"), batch=along_axis, shape_rule=same_shape,
                 vjps=(_permutation_vjp(argsort),))


@binds(np.sort, topic=SHAPES)
def _sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """np.sort; every kind gives the same values, so ``kind`` and ``stable`` are accepted."""
    no_extras("sort", order=order)
    a, axis = numpy_along_axis(a, axis)
    return sort(a, axis=axis - array_rank(a))


partition = Primitive("partition", lambda x, kth, axis: np.partition(x, kth, axis=axis),
                      reads=READS_X, source=call_along("np.partition", "kth"),
                      batch=along_axis, shape_rule=same_shape,
                      vjps=(_permutation_vjp(argpartition),))
