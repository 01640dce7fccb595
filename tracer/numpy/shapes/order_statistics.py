"""How numpy's API on tensors maps to ``ir`` primitives: partitioning and order
statistics (partition, median, quantile, percentile, ptp).

The statistics are a sort and an index (for quantiles, at the positions each of
numpy's methods gives, with interpolation between two samples for the methods
that weigh them), so the gradient reaches the samples they pick.
np.sort, one primitive, is bound beside it in ``ir.primitives.reductions``;
np.partition stays here because it reads a traced ``kth`` as plain positions.
"""

import numpy as np

from ir.bindings import along_axis, array_rank, array_shape, no_extras, normalize_axis
from ir.primitives import reductions
from ir.primitives.shape import IndexArg, indexed, key_along
from ir.sizes.traced import TracedSize, product
from tracer.numpy.arguments import plain
from tracer.core import apply, is_traced, tracks_any, value_of, wrap
from tracer.numpy.shapes.quantile_methods import METHODS, sample_positions


def _partition(a, kth, axis=-1, kind="introselect", order=None):
    """np.partition; the gradient goes back through the placement np.argpartition reports."""
    no_extras("partition", order=order)
    kth = np.asarray(plain(kth))
    kth = int(kth) if kth.ndim == 0 else tuple(int(k) for k in kth)
    a, axis = along_axis(a, axis)
    return reductions.partition(a, kth=kth, axis=axis - array_rank(a))


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
        merged = (product(shape[i] for i in axes),) + tuple(shape[i] for i in kept)
        a, axis = np.reshape(np.transpose(a, list(axes) + kept), merged), 0
    # numpy dispatches np.quantile on a tensor ``q`` too: ``apply`` sorts a plain ``a``
    # into a tensor then, where calling ``sort`` would give an array.
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
    """np.median: the middle element of the sorted data, or the mean of the middle two;
    for a symbolic length, the mean of the elements at ``(n - 1) // 2`` and ``n // 2``,
    which are one element when ``n`` is odd.

    Equal values at the middle pass their gradient in input order (see ``ir``'s sort).
    """
    no_extras("median", out=out)
    sorted_, along = _sorted_samples(a, axis)
    if array_shape(sorted_)[along] == 0:  # as numpy: the mean of no samples, nan
        return _keep_reduced(np.mean(sorted_, axis=along), a, axis, keepdims)
    length = array_shape(sorted_)[along]
    half = length // 2
    if isinstance(length, TracedSize):  # (symbolic: one formula for either parity)
        middle = (indexed(sorted_, key_along(along, (length - 1) // 2))
                  + indexed(sorted_, key_along(along, half))) * 0.5
    elif length % 2:
        middle = indexed(sorted_, key_along(along, half))
    else:
        middle = np.mean(indexed(sorted_, key_along(along, slice(half - 1, half + 1))), axis=along)
    return _keep_reduced(_with_nans(middle, sorted_, along), a, axis, keepdims)


def _quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
              keepdims=False, *, weights=None, interpolation=None, name="quantile", scale=1):
    """np.quantile with any of numpy's methods: the sorted samples at the positions the
    method gives (``tracer.numpy.shapes.quantile_methods``), the two on either side weighed as
    numpy weighs them, so the gradient reaches the samples numpy picks.

    ``q`` is data, not a variable: a ``q`` a tape records, tensor or variable, is refused
    rather than given a silent ``None`` gradient.  At a knot (weight 0) the whole
    gradient goes to the lower sample, as numpy's computation picks it.  A symbolic
    number of samples has its positions computed in the trace, from its size.
    """
    no_extras(name, out=out, weights=weights)
    method = _method(name, method, interpolation)
    if np.iscomplexobj(value_of(a)):
        raise TypeError(f"np.{name}: a must be an array of real numbers, as in numpy")
    if tracks_any((q,)):
        raise TypeError(f"np.{name}: q must be plain numbers, not a tensor a tape records")
    weak = type(q) in (int, float)  # numpy types the result by ``a`` alone then
    q = np.asarray(np.true_divide(value_of(q), scale) if scale != 1 else value_of(q))
    if not np.all((0 <= q) & (q <= 1)):
        bound = "[0, 1]" if scale == 1 else "[0, 100]"
        raise ValueError(f"{name.capitalize()}s must be in the range {bound}")
    sorted_, along = _sorted_samples(a, axis)
    n = array_shape(sorted_)[along]
    previous, following, weight = sample_positions(
        method, n, wrap(q) if isinstance(n, TracedSize) else q)
    result = _take_samples(sorted_, along, previous)
    if following is not None:
        result = _lerp(result, _take_samples(sorted_, along, following),
                       *_weight(weight, weak, result, q.ndim))
    return _keep_reduced(_with_nans(result, sorted_, along), a, axis, keepdims, lead=q.shape)


def _method(name, method, interpolation):
    """The method asked for (``interpolation`` is its name before numpy 2.4), if numpy has it."""
    if interpolation is not None:
        if method != "linear":
            raise TypeError(f"np.{name}: give the method as method= alone, not also as "
                            "interpolation=")
        method = interpolation
    if method not in METHODS:
        raise ValueError(f"{method!r} is not a valid method of np.{name}. Use one of: "
                         f"{', '.join(METHODS)}")
    return method


def _weight(weight, weak, samples, q_rank):
    """The weight of the later sample, shaped to broadcast against the samples, and the
    type it takes in the arithmetic: for a Python number ``q`` numpy makes it a Python
    float, so the result keeps ``a``'s type (a weight computed in the trace is cast)."""
    if weak and not is_traced(weight):
        return float(weight), None
    weight = np.reshape(weight, tuple(weight.shape) + (1,) * (array_rank(samples) - q_rank))
    return weight, np.result_type(value_of(samples).dtype, 1.0) if weak else None


def _lerp(lower, upper, weight, typed=None):
    """numpy's interpolation: forward from the lower sample below a weight of a half, back
    from the upper one from a half on, so that each end is exact.  ``typed``: the type
    a weight and its complement are cast to once computed."""
    step = upper - lower
    if isinstance(weight, float):
        return upper - step * (1 - weight) if weight >= 0.5 else lower + step * weight

    def forward():
        return lower + step * (weight if typed is None else np.astype(weight, typed))

    def back():
        rest = 1 - weight
        return upper - step * (rest if typed is None else np.astype(rest, typed))
    from_upper = weight >= 0.5
    if not is_traced(from_upper) and (from_upper.all() or not from_upper.any()):
        return back() if from_upper.all() else forward()
    return np.where(from_upper, back(), forward())


def _take_samples(sorted_, axis, positions):
    """The sorted samples at ``positions`` along ``axis``, the axes of ``positions`` first."""
    if positions.ndim == 0 and not is_traced(positions):
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


FUNCTIONS = {
    np.partition: _partition, np.median: _median, np.quantile: _quantile,
    np.percentile: _percentile, np.ptp: _ptp,
}
