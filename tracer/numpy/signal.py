"""How numpy's API on tensors maps to ``ir`` primitives: convolve, correlate, trapezoid
and interp, composed of other numpy functions on tensors.

``convolve`` and ``correlate`` are ``tracer.numpy.convolution``'s n-dimensional convolution
along one axis, aligned as numpy aligns them; ``trapezoid`` is numpy's own slices and
sums; ``interp`` reads each point's segment with ``np.searchsorted`` (no gradient: the
segment is piecewise constant) and ``np.take_along_axis``, so its derivatives by ``x``,
``xp``, ``fp``, ``left`` and ``right``, of every order, come from arithmetic.
"""

import numpy as np

from tracer.numpy.convolution import convolve
from tracer.core import as_operand, value_of

MODES = ("valid", "same", "full")


def _convolve(a, v, mode="full"):
    """np.convolve: numpy convolves the longer input with the shorter, which decides
    where ``same`` (the longer's length) is centred."""
    mode = _mode("convolve", mode)
    a, v = _vector("convolve", "a", a, 0), _vector("convolve", "v", v, 0)
    if mode == "same" and v.shape[0] > a.shape[0]:
        a, v = v, a
    return convolve(a, v, mode)


def _correlate(a, v, mode="valid"):
    """np.correlate, ``z[k] = sum_n a[n + k] * conj(v[n])``: the convolution with ``v``
    flipped and conjugated.  Where ``v`` is the longer, numpy's ``same`` window sits
    where the flipped convolution of ``conj(v)`` with ``a`` flipped centres it."""
    mode = _mode("correlate", mode)
    a = _vector("correlate", "the first array argument", a, 1)
    v = _vector("correlate", "the second array argument", v, 1)
    if mode == "same" and v.shape[0] > a.shape[0]:
        return np.flip(convolve(_conjugate(v), np.flip(a), mode))
    return convolve(a, np.flip(_conjugate(v)), mode)


def _mode(function, mode):
    """``mode`` by name; numpy also takes 0, 1 and 2 for them."""
    if isinstance(mode, (int, np.integer)) and not isinstance(mode, bool) and 0 <= mode < 3:
        return MODES[mode]
    if not isinstance(mode, str) or mode not in MODES:
        raise ValueError(f"np.{function}: mode must be one of 'valid', 'same', or 'full' "
                         f"(or 0, 1, 2), got {mode!r}")
    return mode


def _vector(function, name, x, least):
    """``x`` as a non-empty 1-D operand (a scalar made one element long where ``least``
    is 0, as np.convolve makes it)."""
    x = as_operand(x)
    if x.ndim < least or x.ndim > 1:
        raise ValueError(f"np.{function}: {name} must be a 1-D sequence, got shape "
                         f"{tuple(x.shape)}")
    if x.ndim == 0:
        x = np.reshape(x, (1,))
    if x.shape[0] == 0:
        raise ValueError(f"np.{function}: {name} cannot be empty")
    return x


def _conjugate(x):
    """``x`` conjugated (real values as they are, with no node recorded)."""
    return np.conj(x) if np.iscomplexobj(value_of(x)) else x


def _trapezoid(y, x=None, dx=1.0, axis=-1):
    """np.trapezoid as numpy computes it, but for its scalar factors (the halving, and a
    scalar spacing), taken after the sum: generated gradients then scale the seed before
    broadcasting it, not a broadcast array (the value differs from numpy's by rounding
    only where the spacing is a scalar)."""
    y = as_operand(y)
    if x is None:
        d = dx
    else:
        x = as_operand(x)
        if x.ndim == 1:
            d = np.diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = np.reshape(d, shape)
        else:
            d = np.diff(x, axis=axis)
    later, earlier = [slice(None)] * y.ndim, [slice(None)] * y.ndim
    later[axis], earlier[axis] = slice(1, None), slice(None, -1)
    pairs = y[tuple(later)] + y[tuple(earlier)]
    if np.ndim(d) == 0:
        return np.sum(pairs, axis=axis) * d * 0.5
    return np.sum(d * pairs, axis=axis) * 0.5


def _interp(x, xp, fp, left=None, right=None, period=None):
    """np.interp: float64 values (complex128 for complex ``fp``) of ``x``'s shape."""
    fp = as_operand(fp)
    dtype = np.dtype(np.complex128 if np.iscomplexobj(value_of(fp)) else np.float64)
    x, xp, fp = _real("x", x), _real("xp", xp), _cast(fp, dtype)
    if period is not None:
        x, xp, fp = _periodic(x, xp, fp, period)
        left = right = None
    _check_points(xp, fp)
    low = fp[0] if left is None else _bound("left", left, dtype)
    high = fp[-1] if right is None else _bound("right", right, dtype)
    return _piecewise_linear(x, xp, fp, low, high)


def _real(name, values):
    """Sample or query points as float64, as numpy casts them (refusing complex ones)."""
    values = as_operand(values)
    if np.iscomplexobj(value_of(values)):
        raise TypeError(f"np.interp: {name} is complex, and interp reads {name} as real "
                        "numbers (float64): pass its real part, or interpolate the real and "
                        "imaginary parts of fp instead")
    return _cast(values, np.dtype(np.float64))


def _cast(values, dtype):
    return values if value_of(values).dtype == dtype else np.astype(values, dtype)


def _bound(name, value, dtype):
    """``left`` or ``right``: one value, in the result's dtype."""
    value = as_operand(value)
    if value.ndim != 0:
        raise TypeError(f"np.interp: {name} must be a single value (0-d), got shape "
                        f"{tuple(value.shape)}")
    return _cast(value, dtype)


def _check_points(xp, fp):
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError(f"np.interp: xp and fp must be 1-D sequences, got shapes "
                         f"{tuple(xp.shape)} and {tuple(fp.shape)}")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError(f"np.interp: fp and xp are not of the same length ({fp.shape[0]} "
                         f"and {xp.shape[0]})")
    if xp.shape[0] == 0:
        raise ValueError("np.interp: the array of sample points xp is empty")


def _periodic(x, xp, fp, period):
    """``x``, ``xp`` and ``fp`` as numpy makes them for a ``period``: the points reduced
    to one period and sorted, one wrapped point added at each end."""
    if np.any(value_of(period) == 0):
        raise ValueError("np.interp: period must be a non-zero value")
    period = abs(period)
    _check_points(xp, fp)
    x, xp = x % period, xp % period
    order = np.argsort(xp)
    xp, fp = np.take_along_axis(xp, order, axis=0), np.take_along_axis(fp, order, axis=0)
    return (x, np.concatenate([xp[-1:] - period, xp, xp[0:1] + period]),
            np.concatenate([fp[-1:], fp, fp[0:1]]))


def _piecewise_linear(x, xp, fp, low, high):
    """numpy's value at each ``x``: ``low`` before ``xp[0]``, ``high`` after ``xp[-1]``,
    else the line through its segment ``xp[j] <= x < xp[j + 1]`` (the segment to the
    right of a knot, whose derivative a knot therefore takes).

    A flat segment of unit width is added after the last knot, so that every ``x`` has
    one to read: it gives ``fp[-1]`` at ``xp[-1]`` (its derivative by ``x`` is 0 there,
    as beyond it), and its slope stays finite where it is not used."""
    knots = np.concatenate([xp, xp[-1:] + 1.0])
    values = np.concatenate([fp, fp[-1:]])
    segment = np.ravel(np.searchsorted(xp[1:], x, side="right"))

    def at(points):
        return np.reshape(np.take_along_axis(points, segment, axis=0), x.shape)

    inside = _on_segment(x, at(knots[:-1]), at(knots[1:]), at(values[:-1]), at(values[1:]))
    value = np.where(x < xp[0], low, np.where(x > xp[-1], high, inside))
    return np.where(np.isnan(x), x, value)


def _on_segment(x, x0, x1, f0, f1):
    """The line through ``(x0, f0)`` and ``(x1, f1)`` at ``x``, as numpy computes it,
    with numpy's answers where that is NaN (an infinite value or slope): ``f0`` at
    ``x0``, else the line from ``(x1, f1)``, else ``f0`` on a flat segment."""
    slope = (f1 - f0) / (x1 - x0)
    value = slope * (x - x0) + f0
    other = slope * (x - x1) + f1
    other = np.where(np.isnan(other) & (f0 == f1), f0, other)
    return np.where(np.isnan(value), np.where(x == x0, f0, other), value)


FUNCTIONS = {np.convolve: _convolve, np.correlate: _correlate, np.trapezoid: _trapezoid,
             np.interp: _interp}
