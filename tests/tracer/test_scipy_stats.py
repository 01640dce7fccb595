"""``tracer.scipy.stats``' distributions beyond those of ``test_scipy``: every method of
every distribution computes scipy's values, on arrays and on tensors, at interior points,
at the edges of the support and beyond them, and far out in the tails; float32 arguments
give float64 values, as scipy's; and every method's derivatives at interior points match
differences (the gradient table checks a few methods of each more deeply)."""

import math

import numpy as np
import pytest

import tracer

scipy_stats = pytest.importorskip("scipy.stats")

from tracer.scipy import stats  # noqa: E402

CONTINUOUS = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")
QUANTILES = ("ppf", "isf")
DISCRETE = ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf")
Q = np.array([0.0, 1e-300, 1e-12, 0.01, 0.3, 0.5, 0.9, 1 - 1e-9, 1.0, -0.1, 1.1])

SPECS = {
    # name: (shape parameters broadcasting along a last axis, standardised points, loc, scale)
    "norm": ((), [-40.0, -5.0, -1.0, 0.0, 0.5, 3.0, 40.0], 0.3, 1.5),
    "expon": ((), [-1.0, 0.0, 1e-10, 0.5, 3.0, 50.0, 700.0], 0.2, 1.5),
    "cauchy": ((), [-1e10, -30.0, -1.0, 0.0, 2.0, 1e10], -0.5, 2.0),
    "logistic": ((), [-700.0, -40.0, -1.0, 0.0, 3.0, 40.0, 700.0], 0.2, 0.7),
    "laplace": ((), [-700.0, -40.0, -1.0, 0.0, 3.0, 40.0, 700.0], 0.2, 0.7),
    "uniform": ((), [-1.0, 0.0, 1e-12, 0.3, 1.0 - 1e-12, 1.0, 1.5], -0.4, 2.5),
    "gumbel_r": ((), [-5.0, -1.0, 0.0, 3.0, 30.0, 700.0], 0.1, 1.2),
    "gumbel_l": ((), [-700.0, -30.0, -3.0, 0.0, 1.0, 5.0], 0.1, 1.2),
    "pareto": (([0.5, 2.5, 10.0],), [0.5, 1.0, 1.0 + 1e-12, 2.0, 50.0, 1e8], 0.3, 1.5),
    "truncnorm": (([-1.0, 0.5, -40.0, 5.0, -math.inf], [2.0, 3.0, -30.0, 8.0, math.inf]),
                  [-50.0, -35.0, -30.0, -1.0, 0.0, 0.5, 2.0, 3.0, 5.0, 6.0, 8.0, 9.0], 0.1, 0.8),
    "vonmises": (([0.01, 1.5, 50.0, 700.0],), [-4.0, -3.0, 0.0, 1.0, 3.1, 7.0], 0.2, 1.0),
    "wrapcauchy": (([0.01, 0.5, 0.99],), [-0.1, 0.0, 1e-6, 0.5, 3.0, 2 * math.pi, 6.3], 0.0, 1.0),
    "gennorm": (([0.5, 1.0, 2.0, 8.0],), [-30.0, -2.0, -0.5, 0.0, 0.5, 2.0, 30.0], 0.2, 1.3),
    "bernoulli": (([0.0, 0.3, 1.0],), [-1.0, 0.0, 0.5, 1.0, 2.0], 0, None),
    "binom": (([5, 5, 20, 0], [0.4, 0.0, 0.9, 0.5]), [-1.0, 0.0, 1.0, 2.5, 5.0, 6.0, 20.0, 21.0],
              1, None),
    "geom": (([0.3, 1e-3, 1.0],), [-1.0, 0.0, 1.0, 2.0, 2.5, 100.0], 0, None),
    "nbinom": (([2.5, 1.0, 10.0], [0.4, 0.9, 0.05]), [-1.0, 0.0, 1.0, 3.5, 50.0, 2000.0], 0,
               None),
    "betabinom": (([5, 10], [2.0, 0.5], [3.0, 4.0]), [-1.0, 0.0, 2.0, 2.5, 5.0, 6.0, 10.0, 11.0],
                  -1, None),
}


def _methods(name):
    module = getattr(stats, name)
    names = DISCRETE if hasattr(module, "pmf") else CONTINUOUS + QUANTILES
    return [m for m in names if hasattr(module, m)]


CASES = [(name, method) for name in SPECS for method in _methods(name)]
SCIPY_ROUNDS = {"geom.logcdf": {"atol": 1e-15}}
"""Where scipy's value is the less precise, the absolute tolerance that admits it (and a
test of its own checks ours)."""


def _arguments(name, method):
    """The points (a column, against the parameters along the last axis) and the
    parameters, as positional arguments, and ``loc``/``scale`` as keywords."""
    shapes, points, loc, scale = SPECS[name]
    points = np.array(points)
    if method in QUANTILES:
        x = Q[:, None]
    elif scale is None:
        x = points[:, None] + loc
    else:
        x = points[:, None] * scale + loc
    keywords = {"loc": loc} if scale is None else {"loc": loc, "scale": scale}
    return (x, *(np.array(s) for s in shapes)), keywords


@pytest.mark.parametrize("name, method", CASES, ids=[f"{n}.{m}" for n, m in CASES])
def test_values_are_scipys_on_arrays_and_tensors(name, method):
    args, keywords = _arguments(name, method)
    ours = getattr(getattr(stats, name), method)
    tolerance = {"rtol": 1e-10, "atol": 1e-300, **SCIPY_ROUNDS.get(f"{name}.{method}", {})}
    with np.errstate(all="ignore"):
        expected = getattr(getattr(scipy_stats, name), method)(*args, **keywords)
        np.testing.assert_allclose(ours(*args, **keywords), expected, **tolerance)
        traced = ours(*(tracer.constant(a) for a in args), **keywords)
    np.testing.assert_allclose(np.asarray(traced), expected, **tolerance)


def test_the_geometric_logcdf_keeps_its_precision_where_scipys_rounds():
    """scipy's value at ``k = 100`` is the log of a cdf rounded to 1 (off by 3%)."""
    np.testing.assert_allclose(stats.geom.logcdf(100.0, 0.3), math.log1p(-0.7 ** 100),
                               rtol=1e-13)


SMOOTH = {
    # name: (standardised interior points, shape parameters, the methods that differentiate
    # them as well as x, loc and scale)
    "norm": ([-1.3, 0.4, 1.9], (), CONTINUOUS + QUANTILES),
    "expon": ([0.3, 1.1, 2.5], (), CONTINUOUS + QUANTILES),
    "cauchy": ([-1.3, 0.4, 1.9], (), CONTINUOUS + QUANTILES),
    "logistic": ([-1.3, 0.4, 1.9], (), CONTINUOUS + QUANTILES),
    "laplace": ([-1.3, 0.4, 1.9], (), CONTINUOUS + QUANTILES),
    "uniform": ([0.2, 0.5, 0.8], (), CONTINUOUS + QUANTILES),
    "gumbel_r": ([-1.3, 0.4, 1.9], (), CONTINUOUS + QUANTILES),
    "gumbel_l": ([-1.3, 0.4, 1.9], (), CONTINUOUS + QUANTILES),
    "pareto": ([1.3, 2.0, 4.0], (2.5,), CONTINUOUS + QUANTILES),
    "truncnorm": ([-0.5, 0.3, 1.5], (-1.0, 2.0), CONTINUOUS),
    "vonmises": ([-1.3, 0.4, 1.9], (1.5,), CONTINUOUS),
    "wrapcauchy": ([0.5, 2.0, 4.0], (0.4,), CONTINUOUS),
    "gennorm": ([-1.3, 0.4, 1.9], (1.5,), ("pdf", "logpdf")),
    "bernoulli": ([0.0, 1.0, 1.0], (0.3,), DISCRETE),
    "binom": ([0.0, 2.0, 4.0], (5.0, 0.4), DISCRETE),
    "geom": ([1.0, 2.0, 4.0], (0.3,), DISCRETE),
    "nbinom": ([0.0, 2.0, 4.0], (2.5, 0.4), DISCRETE),
    "betabinom": ([0.0, 2.0, 4.0], (5.0, 2.0, 3.0), DISCRETE),
}
WHOLE = {"binom": 1, "nbinom": 1, "betabinom": 1}
"""How many leading shape parameters are counts, held constant (the incomplete beta
function's shape parameters have no derivative)."""
GRADIENT_CASES = [(name, method) for name in SMOOTH for method in _methods(name)]


def _smooth_function(name, method, dtype=np.float64):
    """The method as a function of what it differentiates, and its arguments there (all of
    ``dtype``): the probabilities, or the points, ``loc``, ``scale`` and the smooth shape
    parameters."""
    points, shapes, smooth = SMOOTH[name]
    points, shapes = np.array(points, dtype), [np.array(s, dtype) for s in shapes]
    ours = getattr(getattr(stats, name), method)
    if hasattr(getattr(stats, name), "pmf"):
        counts = WHOLE.get(name, 0)
        return (lambda *rest: ours(points, *shapes[:counts], *rest)), shapes[counts:]
    loc, scale = np.array(0.3, dtype), np.array(1.4, dtype)
    x = np.array([0.05, 0.4, 0.9], dtype) if method in QUANTILES else points * scale + loc
    if method not in smooth:
        return (lambda x, loc, scale: ours(x, *shapes, loc, scale)), (x, loc, scale)
    return (lambda x, loc, scale, *rest: ours(x, *rest, loc, scale)), (x, loc, scale, *shapes)


@pytest.mark.parametrize("name, method", GRADIENT_CASES,
                         ids=[f"{n}.{m}" for n, m in GRADIENT_CASES])
def test_derivatives_at_interior_points_match_differences(name, method):
    function, args = _smooth_function(name, method)
    tracer.check_gradients(function, *args)


@pytest.mark.parametrize("name, method", GRADIENT_CASES,
                         ids=[f"{n}.{m}" for n, m in GRADIENT_CASES])
def test_float32_arguments_give_float64_values(name, method):
    """Every argument float32: the value is float64, as scipy computes, and the float64
    value of those arguments."""
    function, args = _smooth_function(name, method, np.float32)
    value = function(*args)
    assert np.result_type(value) == np.float64
    np.testing.assert_allclose(value, function(*(a.astype(np.float64) for a in args)),
                               rtol=1e-14)


P = np.array([0.2, 0.3, 0.5])


@pytest.mark.parametrize("x, n, p", [
    (np.array([1, 2, 0]), 3, P), (np.array([[1.0, 1, 1], [0, 0, 3], [1, 1, 2], [1, 2.5, -0.5]]),
                                  3, P),
    (np.array([0, 0, 0]), 0, P), (np.array([2, 0, 1]), 3, np.array([0.5, 0.0, 0.5])),
    (np.array([[1, 2, 0]]), np.array([3, 4]), np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
], ids=["counts", "invalid-counts", "no-trials", "zero-probability", "broadcast"])
def test_multinomial_is_scipys(x, n, p):
    with np.errstate(divide="ignore"):
        for method in ("pmf", "logpmf"):
            expected = getattr(scipy_stats.multinomial, method)(x, n, p)
            ours = getattr(stats.multinomial, method)
            np.testing.assert_allclose(ours(x, n, p), expected, rtol=1e-12)
            traced = ours(tracer.constant(x), n, tracer.constant(p))
            np.testing.assert_allclose(np.asarray(traced), expected, rtol=1e-12)


def test_multinomial_differentiates_in_p():
    tracer.check_gradients(lambda p: stats.multinomial.logpmf(np.array([[1, 2, 0], [0, 1, 2]]),
                                                              3, p), P, order=2)
