"""How numpy's API on tensors maps to ``ir`` primitives: weighted averages and the
nan-aware sum and mean, written with numpy's reductions on tensors.
"""

import numpy as np

from ir.bindings import array_shape, no_extras, one_axis
from tracer.core import value_of


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

    The count is computed in the trace (it has no derivative): code generated from
    it counts the nans of the arrays it is called with.
    """
    no_extras("nanmean", dtype=dtype, out=out, where=where)
    if np.asarray(value_of(a)).dtype.kind != "f":
        return np.mean(a, axis=axis, keepdims=bool(keepdims))
    count = np.sum(~np.isnan(a), axis=axis, keepdims=bool(keepdims))
    total = np.sum(_zero_nans(a), axis=axis, keepdims=bool(keepdims))
    return total / count.astype(np.asarray(value_of(total)).dtype)


def _zero_nans(a):
    if np.asarray(value_of(a)).dtype.kind != "f":
        return a
    return np.where(np.isnan(a), 0, a)


FUNCTIONS = {np.average: _average, np.nansum: _nansum, np.nanmean: _nanmean}
