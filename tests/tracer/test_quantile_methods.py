"""np.quantile and np.percentile with each of numpy's thirteen methods: numpy's values
bit for bit (dtype and shape too), at a static and at a symbolic number of samples,
and gradients that reach the samples numpy picks.

The gradient table's ``quantile-<method>`` rows check each method's derivatives at
first and second order, eager, forward, batched and in generated code, for a
Python-number ``q``; here ``q`` arrays are checked too.
"""

import itertools

import numpy as np
import pytest

import codegen
import ir
import tracer
from tracer.numpy.shapes.quantile_methods import METHODS
from tape_refusals import raised_on_a_watched_tensor

NUMPY_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                 "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
                 "normal_unbiased", "lower", "higher", "midpoint", "nearest")
QS = [0.0, 0.3, 0.5, 1.0, 1 / 3, [0.0, 0.1, 0.5, 0.99, 1.0], np.array([[0.2], [0.75]]),
      np.float32(0.4), np.array([0.35, 0.65], np.float32), 1, np.array([0, 1])]
"""Knots, ends, thirds; lists and arrays; float32 and integer ``q``; Python numbers,
which leave the result ``a``'s type."""
DATA = [((5,), None), ((1,), None), ((2, 3, 4), 1), ((3, 4), (0, 1)), ((6, 2), 0)]


def test_every_numpy_method_is_built():
    assert set(METHODS) == set(NUMPY_METHODS)


def _samples():
    """Each method meets each ``q``, and a sample of the shapes and dtypes."""
    combos = itertools.product(range(len(DATA)), (np.float64, np.float32, np.int64))
    combos = itertools.cycle(list(combos))
    for method, q in itertools.product(NUMPY_METHODS, range(len(QS))):
        data, dtype = next(combos)
        yield pytest.param(method, QS[q], DATA[data], dtype,
                           id=f"{method}-q{q}-{DATA[data][0]}-{np.dtype(dtype).name}")


def _values(shape, dtype, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * 5).astype(dtype)


def _assert_exactly(got, want):
    want = np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("method, q, data, dtype", list(_samples()))
def test_values_are_numpys_bit_for_bit(method, q, data, dtype):
    shape, axis = data
    values = _values(shape, dtype)
    x = tracer.constant(values)
    _assert_exactly(np.quantile(x, q, axis=axis, method=method),
                    np.quantile(values, q, axis=axis, method=method))
    percent = [p * 100 for p in q] if isinstance(q, list) else q * 100
    _assert_exactly(np.percentile(x, percent, axis=axis, method=method),
                    np.percentile(values, percent, axis=axis, method=method))


@pytest.mark.parametrize("method", NUMPY_METHODS)
def test_nans_and_infinities_give_numpys_values(method):
    values = np.array([[1.0, np.nan, 3.0, 2.0], [1.0, 2.0, np.inf, 5.0], [-np.inf, 0, 1, 2]])
    x = tracer.constant(values)
    with np.errstate(invalid="ignore"):
        for q in (0.0, 0.5, 1.0, [0.25, 0.6]):
            _assert_exactly(np.quantile(x, q, axis=1, method=method),
                            np.quantile(values, q, axis=1, method=method))


@pytest.mark.parametrize("method", NUMPY_METHODS)
@pytest.mark.parametrize("q, dtype", [(np.array([0.0, 0.3, 0.5, 0.9, 1.0]), np.float64),
                                      (0.7, np.float32)], ids=["array", "python-float32"])
def test_a_symbolic_number_of_samples_gives_numpys_values_at_every_size(method, q, dtype):
    """Positions computed in the trace from the size: the recorded graph, run at other
    sizes, computes what numpy computes at them."""
    values = _values((6, 2), dtype)
    x = tracer.constant(values, name="x", dims=("n", None))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = np.quantile(x, q, axis=0, method=method)
    _assert_exactly(out, np.quantile(values, q, axis=0, method=method))
    graph = tape.graph
    graph.outputs = [len(graph) - 1]
    leaf = next(n.id for n in graph if n.name == "x")
    for n in (1, 2, 3, 7):
        other = _values((n, 2), dtype, seed=n)
        (got,) = ir.evaluate(graph, {leaf: other})
        want = np.quantile(other, q, axis=0, method=method)
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("method", NUMPY_METHODS)
def test_gradients_for_a_q_array_match_differences_and_generated_code(method):
    values = (np.random.default_rng(3).permutation(12) - 6.0).reshape(3, 4) * 0.3

    def fn(x):
        return np.quantile(x, [0.1, 0.45, 0.8], axis=1, method=method) * [[1.0], [2.0], [-1.5]]

    tracer.check_gradients(fn, values, order=2)
    x = tracer.constant(values, name="x")
    seed = np.random.default_rng(4).standard_normal((3, 3))
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = fn(x)
    eager = tape.gradient(out, x, output_gradients=tracer.constant(seed))
    module = codegen.load(codegen.gradient_source(tape, out, [x], seed_argument=True))
    (generated,) = module.gradient(values, seed)
    np.testing.assert_allclose(generated, eager.numpy(), rtol=1e-12)


@pytest.mark.parametrize("method, q, weights", [
    ("lower", 0.6, [0, 0, 1, 0, 0]), ("higher", 0.6, [0, 0, 0, 1, 0]),
    ("nearest", 0.6, [0, 0, 1, 0, 0]), ("midpoint", 0.6, [0, 0, 0.5, 0.5, 0]),
    ("midpoint", 0.5, [0, 0, 1, 0, 0]), ("inverted_cdf", 0.6, [0, 0, 1, 0, 0]),
    ("averaged_inverted_cdf", 0.6, [0, 0, 0.5, 0.5, 0]),
    ("closest_observation", 0.5, [0, 1, 0, 0, 0]), ("hazen", 0.5, [0, 0, 1, 0, 0]),
    ("weibull", 0.25, [0.5, 0.5, 0, 0, 0]), ("weibull", 0.1, [1, 0, 0, 0, 0]),
])
def test_the_gradient_reaches_the_samples_the_method_picks(method, q, weights):
    """``weights`` are by sorted position: each input gets the weight of its rank."""
    values = np.array([30.0, 10.0, 50.0, 20.0, 40.0])
    x = tracer.constant(values)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = np.quantile(x, q, method=method)
    ranks = np.argsort(np.argsort(values))
    np.testing.assert_allclose(tape.gradient(out, x).numpy(), np.array(weights)[ranks])


@pytest.mark.parametrize("call, error, words", [
    (lambda x: np.quantile(x, 0.5, method="bogus"), ValueError, "'bogus' is not a valid method"),
    (lambda x: np.percentile(x, 50, method="Linear"), ValueError, "Use one of: "),
    (lambda x: np.quantile(x, 0.5, method="inverted_cdf", weights=np.ones((2, 3))), TypeError,
     "weights"),
])
def test_refusals_say_what_to_use(call, error, words):
    assert words in str(raised_on_a_watched_tensor(call, error))
