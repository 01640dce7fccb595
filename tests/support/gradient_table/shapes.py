"""Shapes, indexing, scans and order statistics: pad, tile, flip, cumsum, sort, median, ...

Order statistics draw well-separated values (``DISTINCT``), so no sort has
ties near the sample; ``cumprod`` also runs on inputs with exact zeros.
"""

import numpy as np

from gradient_table.cases import (DISTINCT, DISTINCT_2, NONZERO, POSITIVE, REAL, Case, fixed,
                                  weighted_concat, zero_every)


def _weighted(x):
    """``x`` times distinct weights, so a misplaced element changes the result.

    The weights 1, 2, ... are counted from ``x`` itself, so they follow a symbolic size.
    """
    return x * np.cumsum(np.ones_like(x)).reshape(x.shape)


def _shapes():
    return [
        fixed("pad", lambda x: _weighted(np.pad(x, 2)), ((3,), REAL)),
        fixed("pad-pairs", lambda x: _weighted(np.pad(x, ((1, 0), (2, 3)), constant_values=0.5)),
              ((2, 3), REAL)),
        fixed("pad-dict", lambda x: _weighted(np.pad(x, {-1: (0, 2)})), ((2, 3), REAL)),
        fixed("pad-traced-value", lambda x, c: _weighted(np.pad(x, 1, constant_values=c)),
              ((2, 3), REAL), ((), REAL)),
        *_pad_modes(),
        fixed("tile", lambda x: _weighted(np.tile(x, 2)), ((3,), REAL)),
        fixed("tile-promote", lambda x: _weighted(np.tile(x, (2, 1, 2))), ((2, 3), REAL)),
        fixed("repeat", lambda x: _weighted(np.repeat(x, 2, axis=1)), ((2, 3), REAL)),
        fixed("repeat-flat", lambda x: _weighted(np.repeat(x, 3)), ((2, 2), REAL)),
        fixed("repeat-each", lambda x: _weighted(np.repeat(x, [1, 0, 3], axis=-2)),
              ((3, 2), REAL)),
        fixed(".repeat", lambda x: _weighted(x.repeat(2)), ((3,), REAL)),
        fixed("flip", lambda x: _weighted(np.flip(x)), ((2, 3, 4), REAL)),
        fixed("flip-axes", lambda x: _weighted(np.flip(x, (0, -1))), ((2, 3, 4), REAL)),
        fixed("fliplr", lambda x: _weighted(np.fliplr(x)), ((2, 3), REAL)),
        fixed("flipud", lambda x: _weighted(np.flipud(x)), ((3,), REAL)),
        fixed("roll", lambda x: _weighted(np.roll(x, 2)), ((5,), REAL)),
        fixed("roll-flat", lambda x: _weighted(np.roll(x, -4)), ((2, 3), REAL)),
        fixed("roll-axes", lambda x: _weighted(np.roll(x, (1, -1, 2), axis=(0, 1, 1))),
              ((2, 3), REAL)),
        fixed("rot90", lambda x: _weighted(np.rot90(x)), ((2, 3), REAL)),
        fixed("rot90-k3", lambda x: _weighted(np.rot90(x, 3, axes=(2, 1))), ((2, 3, 4), REAL)),
        fixed("rot90-k2", lambda x: _weighted(np.rot90(x, -2)), ((2, 3), REAL)),
        fixed("rollaxis", lambda x: _weighted(np.rollaxis(x, 2)), ((2, 3, 4), REAL)),
        fixed("take_along_axis",
              lambda x: _weighted(np.take_along_axis(x, np.array([[0, 3], [2, 2], [1, 0]]), 1)),
              ((3, 4), REAL)),
        fixed("take_along_axis-flat",
              lambda x: _weighted(np.take_along_axis(x, np.array([4, 0, 4]), None)),
              ((5,), REAL)),
        fixed("take_along_axis-broadcast",
              lambda x: _weighted(np.take_along_axis(x, np.array([[0], [2], [2]]), axis=-1)),
              ((1, 4), REAL)),
        fixed("atleast_2d", lambda x: _weighted(np.atleast_2d(x)), ((3,), REAL)),
        fixed("atleast_3d", lambda x, y: weighted_concat(np.atleast_3d(x, y), 0),
              ((2, 3), REAL), ((3,), REAL)),
        fixed("column_stack", lambda x, y: _weighted(np.column_stack([x, y])),
              ((3,), REAL), ((3, 2), REAL)),
        fixed("dstack", lambda x, y: _weighted(np.dstack([x, y])), ((2, 3), REAL), ((2, 3), REAL)),
        fixed("array_split", lambda x: weighted_concat(np.array_split(x, 3), 0), ((5, 2), REAL)),
        fixed("hsplit", lambda x: weighted_concat(np.hsplit(x, [1]), 1), ((2, 3), REAL)),
        fixed("vsplit", lambda x: weighted_concat(np.vsplit(x, 2), 0), ((4, 2), REAL)),
        fixed("dsplit", lambda x: weighted_concat(np.dsplit(x, 2), 2), ((2, 1, 4), REAL)),
        fixed("append", lambda x, y: _weighted(np.append(x, y)), ((2, 3), REAL), ((2,), REAL)),
        fixed("append-axis", lambda x, y: _weighted(np.append(x, y, axis=0)),
              ((2, 3), REAL), ((1, 3), REAL)),
        fixed("select", lambda x, y: np.select([x > 0.5, x < -0.5], [x * y, y], default=x),
              ((2, 3), DISTINCT), ((3,), REAL)),
        fixed("full", lambda x, v: np.full((2, 3), v, like=x) * x, ((2, 3), REAL), ((), REAL)),
        fixed("linspace", lambda a, b: _weighted(np.linspace(a, b, 5)), ((), REAL), ((), REAL)),
        fixed("linspace-axis", lambda a, b: _weighted(np.linspace(a, b, 4, endpoint=False, axis=1)),
              ((2,), REAL), ((3, 1), REAL)),
        fixed("nan_to_num", lambda x: _weighted(np.nan_to_num(x)), ((2, 3), REAL)),
        fixed("real_if_close", lambda x: np.real_if_close(x) * x, ((3,), REAL)),
    ]


def _pad_modes():
    """np.pad's other modes: wider than the axis (filled a chunk at a time), on the
    trailing axis and on the leading one, whose size the symbolic tests vary."""
    return [
        fixed("pad-edge", lambda x: _weighted(np.pad(x, ((1, 2), (0, 3)), mode="edge")),
              ((2, 3), REAL)),
        fixed("pad-wrap", lambda x: _weighted(np.pad(x, {-1: (2, 7)}, mode="wrap")),
              ((2, 3), REAL)),
        fixed("pad-wrap-leading", lambda x: _weighted(np.pad(x, (1, 2), mode="wrap")),
              ((4,), REAL)),
        fixed("pad-reflect", lambda x: _weighted(np.pad(x, ((0, 0), (2, 6)), mode="reflect")),
              ((2, 3), REAL)),
        fixed("pad-reflect-leading", lambda x: _weighted(np.pad(x, ((2, 1), (0, 0)),
                                                                mode="reflect")),
              ((4, 2), REAL)),
        fixed("pad-reflect-odd",
              lambda x: _weighted(np.pad(x, {1: (5, 1)}, mode="reflect", reflect_type="odd")),
              ((2, 3), REAL)),
        fixed("pad-symmetric", lambda x: _weighted(np.pad(x, {1: (4, 2)}, mode="symmetric")),
              ((2, 3), REAL)),
        fixed("pad-symmetric-odd",
              lambda x: _weighted(np.pad(x, {-1: (1, 5)}, mode="symmetric",
                                         reflect_type="odd")), ((3, 2), REAL)),
        fixed("pad-linear_ramp",
              lambda x: _weighted(np.pad(x, {1: (2, 3)}, mode="linear_ramp",
                                         end_values=((0, 0), (0.5, -1.0)))), ((2, 3), REAL)),
        fixed("pad-maximum", lambda x: _weighted(np.pad(x, {1: (1, 2)}, mode="maximum")),
              ((2, 4), DISTINCT)),
        fixed("pad-minimum",
              lambda x: _weighted(np.pad(x, {1: 2}, mode="minimum", stat_length=(2, 3))),
              ((2, 4), DISTINCT)),
        fixed("pad-mean", lambda x: _weighted(np.pad(x, ((1, 2), (2, 0)), mode="mean",
                                                     stat_length=((1, 2), (2, 9)))),
              ((3, 3), REAL)),
        fixed("pad-median", lambda x: _weighted(np.pad(x, {1: (2, 1)}, mode="median")),
              ((2, 4), DISTINCT)),
    ]


def _scans():
    return [
        fixed("cumsum", lambda x: _weighted(np.cumsum(x)), ((2, 3), REAL)),
        fixed("cumsum-axis", lambda x: _weighted(np.cumsum(x, axis=1)), ((2, 3, 4), REAL)),
        fixed(".cumsum", lambda x: _weighted(x.cumsum(-1)), ((2, 3), REAL)),
        fixed("cumprod", lambda x: _weighted(np.cumprod(x, axis=0)), ((5, 2), NONZERO)),
        fixed("cumprod-flat", lambda x: _weighted(np.cumprod(x)), ((2, 3), NONZERO)),
        [Case(f"cumprod-zeros{k}", lambda x: _weighted(np.cumprod(x, axis=-1)),
              [((2, 7), zero_every(k))]) for k in (3, 5)],
        fixed(".cumprod", lambda x: _weighted(x.cumprod()), ((4,), NONZERO)),
        fixed("diff", lambda x: _weighted(np.diff(x)), ((5,), REAL)),
        fixed("diff-n2-axis", lambda x: _weighted(np.diff(x, 2, axis=0)), ((4, 3), REAL)),
        fixed("diff-ends", lambda x, y: _weighted(np.diff(x, prepend=0.5, append=y)),
              ((2, 3), REAL), ((2, 1), REAL)),
    ]


def _order_statistics():
    return [
        fixed("sort", lambda x: _weighted(np.sort(x)), ((5,), DISTINCT)),
        fixed("sort-axis", lambda x: _weighted(np.sort(x, axis=0)), ((3, 4), DISTINCT)),
        fixed("sort-flat", lambda x: _weighted(np.sort(x, axis=None)), ((2, 3), DISTINCT)),
        fixed("partition", lambda x: _weighted(np.partition(x, 2)), ((6,), DISTINCT)),
        fixed("partition-kths", lambda x: _weighted(np.partition(x, (1, 3), axis=0)),
              ((5, 2), DISTINCT)),
        fixed("median", np.median, ((5,), DISTINCT)),
        fixed("median-even", np.median, ((4,), DISTINCT)),
        fixed("median-axis", lambda x: np.median(x, axis=1, keepdims=True), ((3, 4), DISTINCT)),
        fixed("median-axes", lambda x: np.median(x, axis=(0, 2)), ((2, 3, 4), DISTINCT)),
        fixed("quantile", lambda x: np.quantile(x, 0.3), ((5,), DISTINCT)),
        fixed("quantile-knot", lambda x: np.quantile(x, 0.25, axis=0), ((5, 2), DISTINCT)),
        fixed("quantile-array",
              lambda x: _weighted(np.quantile(x, [0.2, 0.5, 1.0], axis=1)), ((3, 4), DISTINCT)),
        fixed("quantile-keepdims",
              lambda x: _weighted(np.quantile(x, np.array([[0.1], [0.9]]), axis=-1,
                                              keepdims=True)), ((3, 4), DISTINCT)),
        fixed("percentile", lambda x: np.percentile(x, 40, axis=(0, 2)), ((2, 3, 4), DISTINCT)),
        *_quantile_methods(),
        fixed("ptp", lambda x: np.ptp(x, axis=0), ((3, 4), DISTINCT)),
        fixed("ptp-all", np.ptp, ((2, 3), DISTINCT)),
        fixed("average", lambda x: np.average(x, axis=1, weights=[1.0, 2.0, 0.5, 3.0]),
              ((3, 4), REAL)),
        fixed("average-traced-weights", lambda x, w: np.average(x, weights=w), ((2, 3), REAL),
              ((2, 3), POSITIVE)),
        fixed("average-returned",
              lambda x, w: np.stack(np.average(x, axis=0, weights=w, returned=True)),
              ((3, 2), REAL), ((3,), POSITIVE)),
        fixed("nansum", lambda x: np.nansum(x, axis=0), ((3, 4), REAL)),
        fixed("nanmean", lambda x: np.nanmean(x, axis=-1, keepdims=True), ((3, 4), REAL)),
        fixed("nanmean-all", np.nanmean, ((2, 3), DISTINCT_2)),
    ]


def _quantile_methods():
    """numpy's other quantile methods, each where it weighs two samples or picks one
    (``q`` a Python number: the positions are plain indices on every target)."""
    return [
        fixed("quantile-lower", lambda x: np.quantile(x, 0.6, method="lower"), ((5,), DISTINCT)),
        fixed("quantile-higher", lambda x: np.quantile(x, 0.3, axis=1, method="higher"),
              ((3, 4), DISTINCT)),
        fixed("quantile-nearest", lambda x: np.quantile(x, 0.55, axis=0, keepdims=True,
                                                        method="nearest"), ((6, 2), DISTINCT)),
        fixed("quantile-midpoint", lambda x: np.quantile(x, 0.4, axis=-1, method="midpoint"),
              ((2, 5), DISTINCT)),
        fixed("quantile-inverted_cdf", lambda x: np.quantile(x, 0.5, method="inverted_cdf"),
              ((2, 3), DISTINCT)),
        fixed("quantile-averaged_inverted_cdf",
              lambda x: np.quantile(x, 0.5, method="averaged_inverted_cdf"), ((4,), DISTINCT)),
        fixed("quantile-closest_observation",
              lambda x: np.quantile(x, 0.7, axis=0, method="closest_observation"),
              ((5, 3), DISTINCT)),
        fixed("quantile-interpolated_inverted_cdf",
              lambda x: np.quantile(x, 0.65, method="interpolated_inverted_cdf"),
              ((5,), DISTINCT)),
        fixed("quantile-hazen", lambda x: np.quantile(x, 0.8, axis=1, method="hazen"),
              ((2, 6), DISTINCT)),
        fixed("quantile-weibull", lambda x: np.quantile(x, 0.35, axis=0, method="weibull"),
              ((6, 2), DISTINCT)),
        fixed("quantile-median_unbiased",
              lambda x: np.quantile(x, 0.2, method="median_unbiased"), ((7,), DISTINCT)),
        fixed("quantile-normal_unbiased",
              lambda x: np.quantile(x, 0.9, axis=-1, keepdims=True, method="normal_unbiased"),
              ((3, 5), DISTINCT)),
        fixed("percentile-nearest", lambda x: np.percentile(x, 30, axis=1, method="nearest"),
              ((2, 5), DISTINCT)),
        fixed("percentile-hazen", lambda x: np.percentile(x, 75.0, method="hazen"),
              ((2, 3), DISTINCT)),
    ]


def rows():
    """The shape, scan and order-statistic cases."""
    table = _shapes() + _scans() + _order_statistics()
    return [case for group in table for case in group]
