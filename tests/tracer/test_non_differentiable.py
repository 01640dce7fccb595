"""Functions without a gradient compute as numpy does on recorded tensors, and their
gradient is ``None``: never an error (``tracer.numpy.api.NON_DIFFERENTIABLE``)."""

import inspect

import numpy as np
import pytest

import tracer
from tracer import GradientTape
from tracer.numpy.api import NON_DIFFERENTIABLE

X = np.array([[0.7, -1.5, 2.5], [-0.2, 3.5, np.nan]])
Y = np.array([0.5, -1.5, 4.0])

CALLS = {
    np.argmax: lambda x, y: np.argmax(x, axis=1),
    np.argmin: lambda x, y: np.argmin(y),
    np.argsort: lambda x, y: np.argsort(y),
    np.argpartition: lambda x, y: np.argpartition(y, 1),
    np.nonzero: lambda x, y: np.nonzero(x > 0),
    np.flatnonzero: lambda x, y: np.flatnonzero(y),
    np.searchsorted: lambda x, y: np.searchsorted(np.sort(np.asarray([1.0, 2.0])), y),
    np.floor: lambda x, y: np.floor(x),
    np.ceil: lambda x, y: np.ceil(x),
    np.trunc: lambda x, y: np.trunc(x),
    np.rint: lambda x, y: np.rint(x),
    np.round: lambda x, y: np.round(x, 1),
    np.around: lambda x, y: np.around(y),
    np.fix: lambda x, y: np.fix(x),
    np.isfinite: lambda x, y: np.isfinite(x),
    np.isinf: lambda x, y: np.isinf(x / 0.0),
    np.isnan: lambda x, y: np.isnan(x),
    np.isreal: lambda x, y: np.isreal(x * (1 + 0j)),
    np.iscomplex: lambda x, y: np.iscomplex(x + y * 1j),
    np.greater: lambda x, y: x > y,
    np.greater_equal: lambda x, y: np.greater_equal(x, y),
    np.less: lambda x, y: x < y,
    np.less_equal: lambda x, y: x <= y,
    np.equal: lambda x, y: x == y,
    np.not_equal: lambda x, y: np.not_equal(x, y),
    np.logical_and: lambda x, y: np.logical_and(x > 0, y > 0),
    np.logical_or: lambda x, y: np.logical_or(x > 0, y > 0),
    np.logical_xor: lambda x, y: np.logical_xor(x > 0, y > 0),
    np.logical_not: lambda x, y: np.logical_not(x > 0),
    np.bitwise_and: lambda x, y: (x > 0) & (y > 0),
    np.bitwise_or: lambda x, y: np.bitwise_or(x > 0, y > 0),
    np.bitwise_xor: lambda x, y: (x > 0) ^ (y > 0),
    np.invert: lambda x, y: ~(x > 0),
    np.linalg.matrix_rank: lambda x, y: np.linalg.matrix_rank(np.outer(y, y)),
    np.isposinf: lambda x, y: np.isposinf(x / 0.0),
    np.isneginf: lambda x, y: np.isneginf(x / 0.0),
    np.argwhere: lambda x, y: np.argwhere(x > 0),
}
try:
    import scipy.special
except ModuleNotFoundError:
    pass
else:  # (scipy's ufunc itself: with SCIPY_ARRAY_API=1 scipy wraps it)
    CALLS[inspect.unwrap(scipy.special.gammasgn)] = lambda x, y: scipy.special.gammasgn(x)


def test_every_listed_function_is_exercised_here():
    assert set(CALLS) == set(NON_DIFFERENTIABLE)


@pytest.mark.parametrize("func", list(CALLS), ids=lambda f: f.__name__)
def test_computes_numpy_values_and_has_no_gradient(func):
    x, y = tracer.constant(X), tracer.constant(Y)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = CALLS[func](X, Y)
        with GradientTape(persistent=True) as tape:
            tape.watch([x, y])
            result = CALLS[func](x, y)
    results = result if isinstance(result, tuple) else (result,)
    expecteds = expected if isinstance(expected, tuple) else (expected,)
    for value, numpy_value in zip(results, expecteds):
        assert isinstance(value, tracer.Tensor)
        np.testing.assert_array_equal(value.numpy(), numpy_value)
        assert value.dtype == np.asarray(numpy_value).dtype
    assert tape.gradient(list(results), [x, y]) == [None, None]
    assert tape.gradient(list(results), [x, y], unconnected_gradients="zero")[0].shape == X.shape


def test_a_constant_factor_from_them_leaves_the_other_factor_differentiable():
    x = tracer.constant(np.array([0.7, -1.5, 2.5]))
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.floor(x) * x + np.sign(x) * (x > 0))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.floor(x.numpy()))


def test_their_reasons_are_given():
    assert NON_DIFFERENTIABLE[np.argsort] == "returns integer positions"
    assert NON_DIFFERENTIABLE[np.floor] == "is piecewise constant"
    assert NON_DIFFERENTIABLE[np.isnan] == "returns booleans"
