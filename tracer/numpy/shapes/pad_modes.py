"""np.pad's modes other than 'constant', from slices, flips, broadcasts, reductions and
concatenation, so every derivative, batching and target of those pieces serves them.

Each axis is padded in turn, on the array the earlier axes have padded, as numpy
pads them; where a pad is wider than the values it repeats, numpy fills it a
chunk at a time from what it has filled so far, and so do these, chunk for
chunk, so that values, including ``reflect_type='odd'``'s, are numpy's own.
"""

import numpy as np

from ir.bindings import array_rank, array_shape
from ir.primitives import shape as shape_ops
from ir.primitives.shape import indexed, key_along
from tracer.numpy.arguments import plain
from tracer.core import apply, flat_leaves, tracks_any, value_of

OPTIONS = {
    "constant": ("constant_values",), "edge": (), "wrap": (),
    "reflect": ("reflect_type",), "symmetric": ("reflect_type",),
    "linear_ramp": ("end_values",), "maximum": ("stat_length",), "minimum": ("stat_length",),
    "mean": ("stat_length",), "median": ("stat_length",),
}
"""The modes on tensors, each with the keyword arguments numpy reads for it; 'constant'
is one ``pad`` (``tracer.numpy.shapes.padding``), the others are built here."""

NOT_BUILT = ("empty",)
"""numpy's modes refused on tensors: 'empty' leaves the pad uninitialised."""


def check_mode(mode, options):
    """Refuse a mode (or an argument to it) numpy would refuse, or that tapegen does not
    build, saying which modes and arguments it does."""
    supported = ", ".join(repr(m) for m in OPTIONS)
    if callable(mode) or mode in NOT_BUILT:
        name = getattr(mode, "__name__", mode)
        raise TypeError(f"np.pad(..., mode={name!r}) is not supported on tracer tensors; "
                        f"the modes supported are {supported}")
    if mode not in OPTIONS:
        raise ValueError(f"mode {mode!r} is not supported: np.pad on tracer tensors "
                         f"supports {supported}")
    unread = set(options) - set(OPTIONS[mode])
    if unread:
        takes = ", ".join(OPTIONS[mode]) or "none"
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unread} "
                         f"(its keyword arguments: {takes})")
    read = {k: v for k, v in options.items() if k in ("end_values", "stat_length")}
    if tracks_any(flat_leaves(list(read.values()), {})):
        raise TypeError(f"np.pad(..., mode={mode!r}): {', '.join(read)} must be plain "
                        "numbers, not tensors a tape records")


def pad_in_mode(array, widths, mode, options, pairs):
    """``array`` padded by ``widths`` (a pair per axis) in ``mode``; ``pairs(values)`` reads
    a per-axis argument (``end_values``, ``stat_length``) as numpy does."""
    shape = array_shape(array)
    for axis, size in enumerate(shape):
        if any(widths[axis]) and size == 0:  # (a guard for a symbolic size padded)
            raise ValueError(f"can't extend empty axis {axis} using modes other than "
                             "'constant' or 'empty'")
    if any(isinstance(size, int) and size == 0 for size in shape):
        # numpy computes nothing for an empty array: its padded shape is all there is.
        return apply(shape_ops.pad, (array,), {"pad_width": widths, "constant_values": 0})
    per_axis = _per_axis_options(mode, options, pairs, len(shape))
    for axis, width in enumerate(widths):
        if any(width):
            array = _PADDERS[mode](array, axis, width, **per_axis[axis])
    return array


def _per_axis_options(mode, options, pairs, ndim):
    """Each axis's keyword arguments for its padder."""
    if mode in ("reflect", "symmetric"):
        odd = options.get("reflect_type", "even") == "odd"
        return [{"odd": odd, "edge": mode == "symmetric"}] * ndim
    if mode == "linear_ramp":
        return [{"ends": pair} for pair in _ramp_ends(options.get("end_values", 0), ndim, pairs)]
    if mode in _STATISTICS:
        lengths = options.get("stat_length")
        lengths = ([(None, None)] * ndim if lengths is None
                   else pairs(plain(lengths), ndim, index=True))
        return [{"lengths": pair, "statistic": _STATISTICS[mode]} for pair in lengths]
    return [{}] * ndim


def _ramp_ends(end_values, ndim, pairs):
    """Each axis's end values.  numpy keeps one value, or one pair, as numpy scalars,
    whose type counts in the ramp's (``0`` ramps a float32 array in float64), and pairs
    per axis as Python numbers, whose type does not."""
    values = np.asarray(plain(end_values))
    ends = pairs(values, ndim)
    if values.ndim < 3 and (values.size == 1 or (values.size == 2 and values.shape != (2, 1))):
        ends = [tuple(values.dtype.type(v) for v in pair) for pair in ends]
    return ends


def _joined(before, x, after, axis):
    """``x`` with ``before`` and ``after`` (either may be ``None``) joined along ``axis``."""
    parts = [p for p in (before, x, after) if p is not None]
    return np.concatenate(parts, axis=axis) if len(parts) > 1 else x


def _spread(piece, axis, width):
    """``piece`` (one element long on ``axis``) repeated ``width`` times along it."""
    if not width:
        return None
    shape = list(array_shape(piece))
    shape[axis] = width
    return np.broadcast_to(piece, tuple(shape))


def _ends(x, axis):
    return (indexed(x, key_along(axis, slice(0, 1))),
            indexed(x, key_along(axis, slice(-1, None))))


def _edge(x, axis, width):
    first, last = _ends(x, axis)
    return _joined(_spread(first, axis, width[0]), x, _spread(last, axis, width[1]), axis)


def _wrap(x, axis, width):
    """numpy's 'wrap': each pass copies whole periods of what is filled so far."""
    length = array_shape(x)[axis]
    before, after = width
    while before or after:
        filled = array_shape(x)[axis]
        period = filled // length * length
        left, right = min(period, before), min(period, after)
        start = filled - period
        x = _joined(indexed(x, key_along(axis, slice(period - left, period))) if left else None,
                    x,
                    indexed(x, key_along(axis, slice(start, start + right))) if right else None,
                    axis)
        before, after = before - left, after - right
    return x


def _reflect(x, axis, width, odd, edge):
    """numpy's 'reflect' (``edge`` False: about the edge) and 'symmetric' (``edge`` True:
    the edge repeated), a chunk per pass; odd reflections subtract from twice the edge."""
    length = array_shape(x)[axis]
    if length == 1:  # numpy's rule: a single value is extended as by 'edge'
        return _edge(x, axis, width)
    before, after = width
    while before or after:
        filled = array_shape(x)[axis]
        chunk = (filled // length * length if edge
                 else (filled - 1) // (length - 1) * (length - 1))
        left, right = min(chunk, before), min(chunk, after)
        offset = 1 if edge else 0
        head = tail = None
        if left:
            head = indexed(x, key_along(axis, slice(left - offset, None if edge else 0, -1)))
        if right:
            tail = indexed(x, key_along(axis, slice(offset - 2, offset - 2 - right, -1)))
        if odd:
            first, last = _ends(x, axis)
            head = None if head is None else 2 * first - head
            tail = None if tail is None else 2 * last - tail
        x = _joined(head, x, tail, axis)
        before, after = before - left, after - right
    return x


def _linear_ramp(x, axis, width, ends):
    """numpy's 'linear_ramp': from each end value towards the edge, the edge excluded."""
    dtype = np.asarray(value_of(x)).dtype
    ramps = [_ramp(end, np.squeeze(edge, axis), count, dtype, axis) if count else None
             for end, edge, count in zip(ends, _ends(x, axis), width)]
    if ramps[1] is not None:
        ramps[1] = np.flip(ramps[1], axis)
    return _joined(ramps[0], x, ramps[1], axis)


def _ramp(start, stop, count, dtype, axis):
    """``np.linspace(start, stop, count, endpoint=False, dtype=dtype, axis=axis)`` for a
    plain ``start``, step for step as numpy computes it (in the type of ``stop`` and the
    Python number ``start``, and by another formula when a step is zero), so the values
    are numpy's to the last bit."""
    computed = np.result_type(start, np.asarray(value_of(stop)).dtype)
    computed = computed if computed.kind in "fc" else np.result_type(computed, 1.0)
    delta = np.astype(stop, computed) - start
    positions = np.arange(count, dtype=computed).reshape((-1,) + (1,) * array_rank(delta))
    step = delta / count
    samples = np.where(np.any(step == 0), positions / count * delta, positions * step) + start
    samples = np.moveaxis(samples, 0, axis)
    if dtype.kind in "iu":
        samples = np.floor(samples)
    return np.astype(samples, dtype)


def _statistic_pad(x, axis, width, lengths, statistic):
    """numpy's 'maximum', 'minimum', 'mean' and 'median': the statistic of the first and
    last ``lengths`` values (all of them for ``None``), rounded for an integer array."""
    size = array_shape(x)[axis]
    lengths = [size if n is None or size < n else n for n in lengths]
    if 0 in lengths and statistic in (np.max, np.min):
        raise ValueError("stat_length of 0 yields no value for padding")
    first = _statistic(indexed(x, key_along(axis, slice(0, lengths[0]))), axis, statistic)
    if lengths[0] == lengths[1] == size:
        last = first
    else:
        tail = indexed(x, key_along(axis, slice(size - lengths[1], size)))
        last = _statistic(tail, axis, statistic)
    return _joined(_spread(first, axis, width[0]), x, _spread(last, axis, width[1]), axis)


def _statistic(chunk, axis, statistic):
    dtype = np.asarray(value_of(chunk)).dtype
    value = statistic(chunk, axis=axis, keepdims=True)
    if dtype.kind in "iu":
        value = np.round(value)
    return np.astype(value, dtype)


_STATISTICS = {"maximum": np.max, "minimum": np.min, "mean": np.mean, "median": np.median}

_PADDERS = {"edge": _edge, "wrap": _wrap, "reflect": _reflect, "symmetric": _reflect,
            "linear_ramp": _linear_ramp, **dict.fromkeys(_STATISTICS, _statistic_pad)}
