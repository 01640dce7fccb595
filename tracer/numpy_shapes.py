"""How numpy's API on tensors maps to ``ir`` primitives: shapes, indexing, scans and order
statistics beyond the core set (pad, tile, cumsum, sort, median, ...).

Most functions here are compositions of other numpy functions on tensors (a
flip is a reversed slice, a tile a broadcast and a reshape, a median a sort
and an index), so their derivatives of every order come from those pieces.
Functions call numpy on tensors where numpy's own dispatch maps the call
(see ``tracer.numpy_common``), and ``apply`` primitives directly where they
are new here.
"""

import numpy as np

from ir.primitives import reductions
from ir.primitives import shape as shape_ops
from ir.primitives.shape import IndexArg
from tracer.arguments import (along_axis, array_rank, array_shape, no_extras, normalize_axis,
                              one_axis, plain)
from tracer.core import apply, as_operand, is_traced, tracks_any, value_of, wrap
from tracer.numpy_common import at_least, at_least_all, indexed, key_along, split


# --- padding, tiling, repeating ---------------------------------------------

def _as_pairs(values, ndim):
    """One ``(before, after)`` pair per axis, as np.pad reads ``pad_width`` and
    ``constant_values``: one value for all, one pair for all, or pairs per axis."""
    values = np.asarray(values)
    if values.ndim < 3 and (values.size == 1 or (values.size == 2 and values.shape != (2, 1))):
        pair = values.ravel()
        return (tuple(pair[[0, -1]].tolist()),) * ndim
    return tuple(tuple(pair) for pair in np.broadcast_to(values, (ndim, 2)).tolist())


def _pad_widths(pad_width, ndim):
    """numpy's spellings of ``pad_width`` (int, pair, pairs per axis, dict) as pairs per axis."""
    if isinstance(pad_width, dict):
        widths = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            widths[one_axis(axis, ndim)] = (width, width) if np.ndim(width) == 0 else tuple(width)
        pad_width = widths
    widths = np.asarray(plain(pad_width))
    if widths.dtype.kind != "i":
        raise TypeError("np.pad: `pad_width` must be of integral type.")
    if (widths < 0).any():
        raise ValueError("np.pad: index can't contain negative values")
    return _as_pairs(widths, ndim)


def _pad(array, pad_width, mode="constant", **kwargs):
    if mode != "constant" or set(kwargs) - {"constant_values"}:
        raise TypeError(f"np.pad(..., mode={mode!r}, {', '.join(f'{k}=' for k in kwargs)}) is not "
                        "supported on tracer tensors; use mode='constant' with constant_values= "
                        "(or build other modes from slices and np.concatenate)")
    ndim = array_rank(array)
    widths = _pad_widths(pad_width, ndim)
    fill = kwargs.get("constant_values", 0)
    if not any(before or after for before, after in widths):
        return array
    if is_traced(fill) and array_rank(fill) == 0:
        return _pad_with_traced(array, widths, fill)
    if is_traced(fill) and tracks_any((fill,)):
        raise TypeError("np.pad on tracer tensors: a traced constant_values must be a scalar; "
                        "pad with plain numbers per axis, or pad each axis separately")
    fill = np.asarray(value_of(fill))
    fill = fill.item() if fill.ndim == 0 else _as_pairs(fill, ndim)
    return apply(shape_ops.pad, (array,), {"pad_width": widths, "constant_values": fill})


def _pad_with_traced(array, widths, fill):
    """Padding with a traced scalar: the fill broadcast beside ``array``, axis by axis."""
    fill = np.astype(fill, value_of(array).dtype)
    for axis, (before, after) in enumerate(widths):
        parts = []
        for width in (before, after):
            shape = list(array_shape(array))
            shape[axis] = width
            parts.append(np.broadcast_to(fill, tuple(shape)) if width else None)
        array = np.concatenate([p for p in (parts[0], array, parts[1]) if p is not None], axis=axis)
    return array


def _tile(A, reps):
    reps = tuple(int(r) for r in np.atleast_1d(plain(reps)))
    shape = array_shape(A)
    ndim = max(len(reps), len(shape))
    shape = (1,) * (ndim - len(shape)) + tuple(shape)
    reps = (1,) * (ndim - len(reps)) + reps
    # Each axis that repeats gets a new axis before it to broadcast along: the copies
    # are the outer index, as in np.tile.
    spread = sum(((r, d) if r != 1 else (d,) for r, d in zip(reps, shape)), ())
    unit = sum(((1, d) if r != 1 else (d,) for r, d in zip(reps, shape)), ())
    tiled = np.broadcast_to(np.reshape(A, unit), spread)
    return np.reshape(tiled, tuple(r * d for r, d in zip(reps, shape)))


def _repeat(a, repeats, axis=None):
    a, axis = along_axis(a, axis)
    shape = array_shape(a)
    repeats = np.asarray(plain(repeats))
    if repeats.dtype.kind not in "iu":
        raise TypeError("np.repeat: repeats must be integers")
    if (repeats < 0).any():
        raise ValueError("np.repeat: negative dimensions are not allowed")
    if repeats.size == 1:
        count = int(repeats.reshape(()))
        before, after = tuple(shape[:axis + 1]), tuple(shape[axis + 1:])
        spread = np.broadcast_to(np.reshape(a, before + (1,) + after), before + (count,) + after)
        return np.reshape(spread, before[:-1] + (shape[axis] * count,) + after)
    positions = np.repeat(np.arange(shape[axis]), np.broadcast_to(repeats, (shape[axis],)))
    return indexed(a, key_along(axis, IndexArg(0)), positions)


# --- flips, rolls, rotations ------------------------------------------------

def _flip(m, axis=None):
    ndim = array_rank(m)
    axes = range(ndim) if axis is None else normalize_axis(axis, ndim)
    if not axes:
        return m
    reversed_ = slice(None, None, -1)
    return indexed(m, tuple(reversed_ if i in axes else slice(None)
                           for i in range(max(axes) + 1)))


def _fliplr(m):
    if array_rank(m) < 2:
        raise ValueError("Input must be >= 2-d.")
    return _flip(m, 1)


def _flipud(m):
    if array_rank(m) < 1:
        raise ValueError("Input must be >= 1-d.")
    return _flip(m, 0)


def _roll(a, shift, axis=None):
    if axis is None:
        return np.reshape(_roll(np.ravel(a), shift, 0), array_shape(a))
    shape = array_shape(a)
    axes = [int(i) for i in np.atleast_1d(axis)]
    pairs = np.broadcast(np.asarray(plain(shift)), np.asarray(axes))
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = [0] * len(shape)
    for step, ax in pairs:
        shifts[one_axis(ax, len(shape))] += int(step)
    for ax, step in enumerate(shifts):
        offset = step % shape[ax] if shape[ax] else 0
        if offset:
            a = np.concatenate([indexed(a, key_along(ax, slice(-offset, None))),
                                indexed(a, key_along(ax, slice(None, -offset)))], axis=ax)
    return a


def _rot90(m, k=1, axes=(0, 1)):
    axes = tuple(axes)
    ndim = array_rank(m)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == ndim:
        raise ValueError("Axes must be different.")
    first, second = (one_axis(a, ndim) for a in axes)
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return _flip(m, (first, second))
    order = list(range(ndim))
    order[first], order[second] = order[second], order[first]
    if k == 1:
        return np.transpose(_flip(m, second), order)
    return _flip(np.transpose(m, order), second)


def _rollaxis(a, axis, start=0):
    ndim = array_rank(a)
    axis = one_axis(axis, ndim)
    if not -ndim <= start <= ndim:
        raise np.exceptions.AxisError(f"'start' arg requires {-ndim} <= start < {ndim + 1}, "
                                      f"but {start} was passed in")
    start = start + ndim if start < 0 else start
    if axis < start:
        start -= 1
    if axis == start:
        return a
    order = [i for i in range(ndim) if i != axis]
    order.insert(start, axis)
    return np.transpose(a, order)


# --- gathers, joins and splits -----------------------------------------------

def _take_along_axis(arr, indices, axis=-1):
    positions = indices if is_traced(indices) else np.asarray(indices)
    if positions.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None and positions.ndim != 1:
        raise ValueError("when axis=None, `indices` must have a single dimension.")
    arr, axis = along_axis(arr, axis)
    ndim = array_rank(arr)
    if ndim != positions.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    return apply(shape_ops.take_along_axis, (arr, positions), {"axis": axis - ndim})


def _compress(condition, a, axis=None, out=None):
    """np.compress: ``a`` at the nonzero positions of ``condition``, which are recorded when
    ``condition`` is, so that generated code finds them again."""
    no_extras("compress", out=out)
    condition = as_operand(condition)
    if array_rank(condition) != 1:
        raise ValueError("condition must be a 1-d array")
    a, axis = along_axis(as_operand(a), axis)
    return indexed(a, key_along(axis, IndexArg(0)), np.flatnonzero(condition))


def _choose(a, choices, out=None, mode="raise"):
    """np.choose: the choices broadcast together and stacked, then taken along the stack
    at the positions ``a`` gives, so the gradient reaches the chosen elements."""
    no_extras("choose", out=out)
    a, choices = as_operand(a), [as_operand(c) for c in choices]
    if np.asarray(value_of(a)).dtype.kind not in "iu":
        raise TypeError("np.choose: the positions `a` must be integers")
    if mode == "wrap":
        a = np.mod(a, len(choices))
    elif mode == "clip":
        a = np.clip(a, 0, len(choices) - 1)
    elif mode != "raise":
        raise ValueError(f"np.choose: mode must be 'raise', 'wrap' or 'clip', not {mode!r}")
    elif np.any((value_of(a) < 0) | (value_of(a) >= len(choices))):
        raise ValueError("invalid entry in choice array")
    shape = np.broadcast_shapes(array_shape(a), *(array_shape(c) for c in choices))
    stacked = np.stack([np.broadcast_to(c, shape) for c in choices])
    positions = np.reshape(np.broadcast_to(a, shape), (1,) + shape)
    return np.reshape(np.take_along_axis(stacked, positions, axis=0), shape)


def _column_stack(tup):
    columns = [np.reshape(a, (-1, 1)) if array_rank(a) < 2 else a for a in tup]
    return np.concatenate(columns, axis=1)


def _dstack(tup):
    return np.concatenate([at_least(a, 3) for a in tup], axis=2)


def _array_split(ary, indices_or_sections, axis=0):
    return split(ary, indices_or_sections, axis, equal=False)


def _split_along(name, axis_of, least):
    def split(ary, indices_or_sections):
        ndim = array_rank(ary)
        if ndim < least:
            raise ValueError(f"{name} only works on arrays of {least} or more dimensions")
        return np.split(ary, indices_or_sections, axis=axis_of(ndim))
    return split


def _append(arr, values, axis=None):
    arr, values = as_operand(arr), as_operand(values)
    if axis is None:
        arr = np.ravel(arr) if array_rank(arr) != 1 else arr
        return np.concatenate([arr, np.ravel(values)], axis=0)
    return np.concatenate([arr, values], axis=axis)


def _select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not choicelist:
        raise ValueError("select with an empty condition list is not possible")
    for i, cond in enumerate(condlist):
        if np.asarray(value_of(cond)).dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    # numpy picks the first condition that holds: nest the wheres from the last one out.
    result = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        result = np.where(cond, choice, result)
    return result


# --- constructors and cleaning ----------------------------------------------

def _full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """np.full(shape, t, like=t): a traced fill value broadcast to ``shape``.

    numpy dispatches np.full on ``like`` alone: without it, np.full converts a
    tensor fill value to an array (a warned escape), or with ``dtype=`` hands it
    to np.copyto, which raises with this advice.
    """
    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    dtype = np.dtype(dtype) if dtype is not None else np.asarray(value_of(fill_value)).dtype
    if not is_traced(fill_value):
        return wrap(np.full(shape, fill_value, dtype=dtype))
    return np.broadcast_to(np.astype(fill_value, dtype), shape)


def _copyto(dst, src, casting="same_kind", where=True):
    if is_traced(dst) or tracks_any((src, where)):
        raise TypeError(
            "np.copyto writes into its first argument: a tensor is immutable, and a numpy array "
            "cannot carry a tensor's gradient (np.full with a traced fill value and a dtype "
            "calls it); use np.broadcast_to(t, shape), np.full(shape, t, like=t) or "
            "np.where(mask, t, dst) instead")
    np.copyto(value_of(dst), plain(src), casting=casting, where=plain(where))


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
              device=None):
    num = int(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    # numpy computes in the type of ``start * 1.0``, ``stop * 1.0`` and ``float(num)``.
    computed = np.result_type(np.asarray(value_of(start)) * 1.0, np.asarray(value_of(stop)) * 1.0,
                              float(num))
    start, stop = (np.astype(v, computed) if is_traced(v) else np.asarray(v, computed)
                   for v in (start, stop))
    delta = stop - start
    ramp = np.arange(num, dtype=computed).reshape((-1,) + (1,) * array_rank(delta))
    div = num - 1 if endpoint else num
    step = delta / div if div > 0 else np.nan
    if div > 0 and endpoint:
        # numpy writes ``stop`` itself into the last sample.
        last = np.broadcast_to(stop, array_shape(delta))
        samples = np.concatenate([ramp[:-1] * step + start, np.expand_dims(last, 0)])
    else:
        samples = ramp * (step if div > 0 else delta) + start
    samples = np.moveaxis(samples, 0, axis)
    if dtype is not None and np.dtype(dtype).kind in "iu":
        samples = np.floor(samples)
    if dtype is not None:
        samples = np.astype(samples, dtype)
    return (samples, step) if retstep else samples


def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    kind = np.asarray(value_of(x)).dtype
    if kind.kind == "c":
        raise TypeError("np.nan_to_num on complex tracer tensors is not supported; "
                        "apply it to np.real(t) and np.imag(t) separately")
    if kind.kind != "f":
        return x
    limits = np.finfo(kind)
    posinf = float(limits.max) if posinf is None else posinf
    neginf = float(limits.min) if neginf is None else neginf
    # The gradient passes where x is finite; the replaced elements are constants.
    cleaned = np.where(np.isnan(x), nan, x)
    cleaned = np.where(x == np.inf, posinf, cleaned)
    return np.where(x == -np.inf, neginf, cleaned)


def _real_if_close(a, tol=100):
    """On real input np.real_if_close is the identity."""
    if not np.iscomplexobj(value_of(a)):
        return a
    if tracks_any((a,)):
        raise TypeError("np.real_if_close on a complex tensor a tape records is not supported: "
                        "its result type depends on the values; use np.real(t) where the "
                        "imaginary part is known to vanish")
    return wrap(np.asarray(np.real_if_close(value_of(a), tol)))


# --- scans and differences ----------------------------------------------------

def _scan(prim, name):
    def scan(a, axis=None, dtype=None, out=None):
        no_extras(name, dtype=dtype, out=out)
        a, axis = along_axis(a, axis)
        return apply(prim, (a,), {"axis": axis - array_rank(a)})
    return scan


def _diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    ndim = array_rank(a)
    if ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = one_axis(axis, ndim)
    edge = list(array_shape(a))
    edge[axis] = 1
    ends = [np.broadcast_to(e, tuple(edge)) if array_rank(e) == 0 else e
            for e in (prepend, append) if e is not np._NoValue]
    if ends:
        first = [ends.pop(0)] if prepend is not np._NoValue else []
        a = np.concatenate(first + [a] + ends, axis=axis)
    for _ in range(n):
        a = indexed(a, key_along(axis, slice(1, None))) - indexed(a, key_along(axis, slice(None, -1)))
    return a


def _gradient(f, *varargs, axis=None, edge_order=1):
    """np.gradient as numpy computes it, in slices and arithmetic, so its derivatives of
    every order (by ``f`` and by traced spacings) come from those."""
    f = as_operand(f)
    shape = array_shape(f)
    axes = (tuple(range(len(shape))) if axis is None
            else np.lib.array_utils.normalize_axis_tuple(axis, len(shape)))
    if not varargs:
        steps = [1.0] * len(axes)
    elif len(varargs) == 1 and array_rank(varargs[0]) == 0:
        steps = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        steps = [_steps(d, shape[a]) for d, a in zip(varargs, axes)]
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    dtype = np.asarray(value_of(f)).dtype
    if dtype.kind not in "fc":
        f, dtype = (np.astype(f, np.float64) if dtype.kind in "iu" else f), np.dtype(np.float64)
    slopes = []
    for axis, step in zip(axes, steps):
        if shape[axis] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                             "least (edge_order + 1) elements are required.")
        slope = _slope(f, axis, step, edge_order, len(shape))
        slopes.append(slope if slope.dtype == dtype else np.astype(slope, dtype))
    return slopes[0] if len(slopes) == 1 else tuple(slopes)


def _steps(spacing, length):
    """One axis's spacing as np.gradient reads it: a scalar as it is, coordinates as their
    differences, or as the one difference when they are plain and evenly spaced.  Traced
    coordinates keep every difference (the formula for uneven spacing holds for even
    spacing too), so each coordinate keeps its gradient."""
    if array_rank(spacing) == 0:
        return spacing
    coordinates = as_operand(spacing)
    if array_rank(coordinates) != 1:
        raise ValueError("distances must be either scalars or 1d")
    if array_shape(coordinates)[0] != length:
        raise ValueError("when 1d, distances must match the length of the corresponding "
                         "dimension")
    if np.asarray(value_of(coordinates)).dtype.kind in "iu":
        coordinates = np.astype(coordinates, np.float64)
    steps = np.diff(coordinates)
    if not is_traced(steps) and (steps == steps[0]).all():
        return steps[0]
    return steps


def _slope(f, axis, step, edge_order, ndim):
    """np.gradient of ``f`` along one axis: central differences inside, one-sided ones
    of ``edge_order`` at both ends, numpy's formulas term for term."""
    def at(start, stop):
        return f[key_along(axis, slice(start, stop))]

    if array_rank(step) == 0:
        inside = (at(2, None) - at(None, -2)) / (2. * step)
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / step
            last = (at(-1, None) - at(-2, -1)) / step
        else:
            first = (-1.5 / step) * at(0, 1) + (2. / step) * at(1, 2) + (-0.5 / step) * at(2, 3)
            last = (0.5 / step) * at(-3, -2) + (-2. / step) * at(-2, -1) + (1.5 / step) * at(-1, None)
    else:
        along = [1] * ndim
        along[axis] = -1
        dx1, dx2 = np.reshape(step[:-1], along), np.reshape(step[1:], along)
        inside = (-dx2 / (dx1 * (dx1 + dx2)) * at(None, -2)
                  + (dx2 - dx1) / (dx1 * dx2) * at(1, -1)
                  + dx1 / (dx2 * (dx1 + dx2)) * at(2, None))
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / step[0]
            last = (at(-1, None) - at(-2, -1)) / step[-1]
        else:
            dx1, dx2 = step[0], step[1]
            first = (-(2. * dx1 + dx2) / (dx1 * (dx1 + dx2)) * at(0, 1)
                     + (dx1 + dx2) / (dx1 * dx2) * at(1, 2)
                     - dx1 / (dx2 * (dx1 + dx2)) * at(2, 3))
            dx1, dx2 = step[-2], step[-1]
            last = (dx2 / (dx1 * (dx1 + dx2)) * at(-3, -2)
                    - (dx2 + dx1) / (dx1 * dx2) * at(-2, -1)
                    + (2. * dx2 + dx1) / (dx2 * (dx1 + dx2)) * at(-1, None))
    return np.concatenate([first, inside, last], axis=axis)


# --- order statistics --------------------------------------------------------

def _sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """np.sort; every kind gives the same values, so ``kind`` and ``stable`` are accepted."""
    no_extras("sort", order=order)
    a, axis = along_axis(a, axis)
    return apply(reductions.sort, (a,), {"axis": axis - array_rank(a)})


def _partition(a, kth, axis=-1, kind="introselect", order=None):
    """np.partition; the gradient goes back through the placement np.argpartition reports."""
    no_extras("partition", order=order)
    kth = np.asarray(plain(kth))
    kth = int(kth) if kth.ndim == 0 else tuple(int(k) for k in kth)
    a, axis = along_axis(a, axis)
    return apply(reductions.partition, (a,), {"kth": kth, "axis": axis - array_rank(a)})


def _sorted_samples(a, axis):
    """``a`` sorted along the axes an order statistic reduces (merged into one), and that axis."""
    shape = tuple(array_shape(a))
    axes = normalize_axis(axis, len(shape))
    if axes is None:
        a, axis = np.ravel(a), 0
    elif len(axes) == 1:
        axis = axes[0]
    else:
        kept = [i for i in range(len(shape)) if i not in axes]
        merged = (int(np.prod([shape[i] for i in axes])),) + tuple(shape[i] for i in kept)
        a, axis = np.reshape(np.transpose(a, list(axes) + kept), merged), 0
    ndim = array_rank(a)
    return apply(reductions.sort, (a,), {"axis": axis - ndim}), axis


def _with_nans(result, sorted_, axis):
    """numpy's order statistics are nan where the data holds a nan, which sorts last."""
    if np.asarray(value_of(sorted_)).dtype.kind != "f":
        return result
    last = indexed(sorted_, key_along(axis, -1))
    return np.where(np.isnan(last), last, result)


def _keep_reduced(result, a, axis, keepdims, lead=()):
    if not keepdims:
        return result
    kept = reductions.kept_shape(tuple(array_shape(a)), normalize_axis(axis, array_rank(a)))
    return np.reshape(result, tuple(lead) + kept)


def _median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """np.median: the middle element of the sorted data, or the mean of the middle two.

    Equal values at the middle pass their gradient in input order (see ``ir``'s sort).
    """
    no_extras("median", out=out)
    sorted_, along = _sorted_samples(a, axis)
    if array_shape(sorted_)[along] == 0:  # as numpy: the mean of no samples, nan
        return _keep_reduced(np.mean(sorted_, axis=along), a, axis, keepdims)
    half = array_shape(sorted_)[along] // 2
    if array_shape(sorted_)[along] % 2:
        middle = indexed(sorted_, key_along(along, half))
    else:
        middle = np.mean(indexed(sorted_, key_along(along, slice(half - 1, half + 1))), axis=along)
    return _keep_reduced(_with_nans(middle, sorted_, along), a, axis, keepdims)


def _quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
              keepdims=False, *, weights=None, interpolation=None, name="quantile", scale=1):
    """np.quantile with method='linear': ``lo + (hi - lo) * gamma`` between the sorted
    samples at ``floor((n - 1) q)`` and the one after it.

    ``q`` is data, not a variable: a traced ``q`` carries no gradient.  At a knot
    (``gamma`` 0) the whole gradient goes to the lower sample, as numpy's
    computation picks it.
    """
    no_extras(name, out=out, weights=weights)
    if np.iscomplexobj(value_of(a)):
        raise TypeError(f"np.{name}: a must be an array of real numbers, as in numpy")
    if interpolation is not None or method != "linear":
        raise ValueError(f"np.{name} on tracer tensors supports only method='linear' (got "
                         f"{interpolation or method!r}); its other methods step between samples")
    if tracks_any((q,)):
        raise TypeError(f"np.{name}: q must be plain numbers, not a tensor a tape records")
    weak = type(q) in (int, float)  # numpy types the result by ``a`` alone then
    q = np.true_divide(value_of(q), scale) if scale != 1 else np.asanyarray(value_of(q))
    if not np.all((0 <= q) & (q <= 1)):
        bound = "[0, 1]" if scale == 1 else "[0, 100]"
        raise ValueError(f"{name.capitalize()}s must be in the range {bound}")
    sorted_, along = _sorted_samples(a, axis)
    n = array_shape(sorted_)[along]
    virtual = (n - 1) * q
    lower = np.clip(np.floor(virtual), 0, n - 1).astype(np.intp)
    gamma = virtual - lower
    lo = _take_samples(sorted_, along, lower)
    if np.any(gamma):
        hi = _take_samples(sorted_, along, np.minimum(lower + 1, n - 1))
        lead = (1,) * (array_rank(lo) - q.ndim)
        lo = lo + (hi - lo) * (float(gamma) if weak else gamma.reshape(q.shape + lead))
    elif not weak and q.dtype.kind == "f":
        lo = np.astype(lo, np.result_type(value_of(lo), gamma))
    return _keep_reduced(_with_nans(lo, sorted_, along), a, axis, keepdims, lead=q.shape)


def _take_samples(sorted_, axis, positions):
    """The sorted samples at ``positions`` along ``axis``, the axes of ``positions`` first."""
    if positions.ndim == 0:
        return indexed(sorted_, key_along(axis, int(positions)))
    taken = indexed(sorted_, key_along(axis, IndexArg(0)), positions)
    lead = list(range(axis, axis + positions.ndim))
    rest = [i for i in range(array_rank(taken)) if i not in lead]
    return np.transpose(taken, lead + rest) if axis else taken


def _percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    return _quantile(a, q, axis, out, overwrite_input, method, keepdims, weights=weights,
                     interpolation=interpolation, name="percentile", scale=100)


def _ptp(a, axis=None, out=None, keepdims=False):
    no_extras("ptp", out=out)
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


# --- averages and nan-aware reductions ---------------------------------------------

def _average(a, axis=None, weights=None, returned=False, *, keepdims=np._NoValue):
    keep = {} if keepdims is np._NoValue else {"keepdims": keepdims}
    if weights is None:
        average = np.mean(a, axis=axis, **keep)
        scale = np.asarray(value_of(average)).dtype.type(
            np.size(value_of(a)) / np.size(value_of(average)))
        return (average, scale) if returned else average
    shape, weight_shape = tuple(array_shape(a)), tuple(array_shape(weights))
    if shape != weight_shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = [one_axis(i, len(shape)) for i in np.atleast_1d(axis)]
        if weight_shape != tuple(shape[i] for i in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        weights = np.transpose(weights, np.argsort(axes)) if len(axes) > 1 else weights
        weights = np.reshape(weights, tuple(d if i in axes else 1 for i, d in enumerate(shape)))
    total = np.sum(weights, axis=axis, **keep)
    if np.any(value_of(total) == 0.0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    average = np.sum(a * weights, axis=axis, **keep) / total
    if not returned:
        return average
    return average, np.broadcast_to(total, array_shape(average))


def _nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    no_extras("nansum", dtype=dtype, out=out, initial=initial, where=where)
    return np.sum(_zero_nans(a), axis=axis, keepdims=bool(keepdims))


def _nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """np.nanmean: the sum of the non-nan elements over their count; no gradient to nans.

    The count is a constant of the trace (counting nans has no derivative).
    """
    no_extras("nanmean", dtype=dtype, out=out, where=where)
    if np.asarray(value_of(a)).dtype.kind != "f":
        return np.mean(a, axis=axis, keepdims=bool(keepdims))
    count = np.sum(~np.isnan(value_of(a)), axis=axis, keepdims=bool(keepdims))
    total = np.sum(_zero_nans(a), axis=axis, keepdims=bool(keepdims))
    return total / count.astype(np.asarray(value_of(total)).dtype)


def _zero_nans(a):
    if np.asarray(value_of(a)).dtype.kind != "f":
        return a
    return np.where(np.isnan(a), 0, a)


FUNCTIONS = {
    np.pad: _pad, np.tile: _tile, np.repeat: _repeat,
    np.flip: _flip, np.fliplr: _fliplr, np.flipud: _flipud, np.roll: _roll,
    np.rot90: _rot90, np.rollaxis: _rollaxis, np.take_along_axis: _take_along_axis,
    np.compress: _compress, np.choose: _choose,
    np.atleast_2d: at_least_all(2), np.atleast_3d: at_least_all(3),
    np.column_stack: _column_stack, np.dstack: _dstack, np.array_split: _array_split,
    np.hsplit: _split_along("hsplit", lambda ndim: 1 if ndim > 1 else 0, 1),
    np.vsplit: _split_along("vsplit", lambda ndim: 0, 2),
    np.dsplit: _split_along("dsplit", lambda ndim: 2, 3),
    np.append: _append, np.select: _select, np.full: _full, np.copyto: _copyto,
    np.linspace: _linspace, np.nan_to_num: _nan_to_num, np.real_if_close: _real_if_close,
    np.cumsum: _scan(reductions.cumsum, "cumsum"), np.cumprod: _scan(reductions.cumprod, "cumprod"),
    np.diff: _diff, np.gradient: _gradient, np.sort: _sort, np.partition: _partition, np.median: _median,
    np.quantile: _quantile, np.percentile: _percentile, np.ptp: _ptp, np.average: _average,
    np.nansum: _nansum, np.nanmean: _nanmean,
}
UFUNCS = {}
REFUSED = frozenset({np.copyto})
"""Mapped only to refuse, with an error that says what to write instead."""
