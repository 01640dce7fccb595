"""Shape, scan and order-statistic functions: conventions at ties, nans and zeros, and errors.

Their gradients away from such points are checked by the gradient table
(``tests/support/gradient_table/shapes.py``).
"""

import numpy as np
import pytest

import codegen
import tracer
from tracer import GradientTape


def _gradient(fn, x, *rest):
    x = tracer.constant(np.asarray(x, dtype=float))
    with GradientTape() as tape:
        tape.watch(x)
        out = fn(x, *rest)
    return tape.gradient(out, x).numpy()


# --- ties, knots and the middle ----------------------------------------------------

def test_sort_passes_tied_cotangents_in_input_order():
    weights = np.array([1.0, 2.0, 3.0, 4.0])
    gradient = _gradient(lambda x: np.sum(np.sort(x) * weights), [1.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(gradient, [2.0, 1.0, 3.0, 4.0])


def test_median_of_an_even_count_splits_between_the_middle_two():
    np.testing.assert_array_equal(_gradient(np.median, [4.0, 1.0, 3.0, 2.0]), [0, 0, 0.5, 0.5])


def test_median_tie_goes_to_the_earlier_input():
    np.testing.assert_array_equal(_gradient(np.median, [2.0, 1.0, 2.0]), [1.0, 0.0, 0.0])


def test_quantile_at_a_knot_takes_the_lower_sample():
    # (5 - 1) * 0.25 = 1: the second smallest, with nothing to the one after it.
    np.testing.assert_array_equal(_gradient(lambda x: np.quantile(x, 0.25), [5.0, 1, 4, 2, 3]),
                                  [0, 0, 0, 1, 0])
    np.testing.assert_array_equal(_gradient(lambda x: np.quantile(x, 1.0), [5.0, 1, 4]), [1, 0, 0])


def test_quantile_between_samples_interpolates():
    gradient = _gradient(lambda x: np.quantile(x, 0.3), [5.0, 1, 4, 2, 3])  # index 1.2
    np.testing.assert_allclose(gradient, [0, 0, 0, 0.8, 0.2])


def test_order_statistics_are_nan_where_numpy_says_so():
    data = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]])
    x = tracer.constant(data)
    for fn in (lambda a: np.median(a, axis=1), lambda a: np.quantile(a, [0.2, 0.7], axis=1),
               lambda a: np.percentile(a, 50, axis=-1, keepdims=True)):
        np.testing.assert_array_equal(fn(x).numpy(), fn(data))


def test_ptp_splits_ties_like_max_and_min():
    np.testing.assert_array_equal(_gradient(np.ptp, [3.0, 1.0, 3.0]), [0.5, -1.0, 0.5])


# --- zeros and non-finite values ------------------------------------------------------

def test_cumprod_is_exact_at_zeros():
    x = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    weights = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    gradient = _gradient(lambda t: np.sum(np.cumprod(t) * weights), x)
    # d/dx_i of sum_j w_j prod_{k<=j} x_k, by hand: only prefixes up to the first zero live.
    np.testing.assert_array_equal(gradient, [1.0, 2.0 * 2 + 3 * 2 * 3, 0.0, 0.0, 0.0])
    assert np.all(np.isfinite(gradient))


def test_nan_to_num_passes_gradient_only_where_finite():
    data = [1.0, np.nan, np.inf, -np.inf, -2.0]
    gradient = _gradient(lambda x: np.sum(np.nan_to_num(x, posinf=9.0, neginf=-9.0) * 3.0), data)
    np.testing.assert_array_equal(gradient, [3.0, 0.0, 0.0, 0.0, 3.0])
    np.testing.assert_array_equal(np.nan_to_num(tracer.constant(data)).numpy(), np.nan_to_num(data))


def test_nan_reductions_give_no_gradient_to_nans():
    data = [[1.0, np.nan, 2.0], [np.nan, 4.0, 5.0]]
    np.testing.assert_array_equal(_gradient(np.nansum, data), [[1, 0, 1], [0, 1, 1]])
    np.testing.assert_allclose(_gradient(lambda x: np.sum(np.nanmean(x, axis=1)), data),
                               [[0.5, 0, 0.5], [0, 0.5, 0.5]])
    np.testing.assert_array_equal(np.nanmean(tracer.constant(data), axis=0).numpy(),
                                  np.nanmean(data, axis=0))


def test_real_input_of_real_if_close_is_itself():
    x = tracer.constant([1.0, 2.0])
    assert np.real_if_close(x) is x


def test_full_with_a_traced_fill_value_through_like():
    v = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch(v)
        y = np.sum(np.full((2, 3), v, like=v))
    assert tape.gradient(y, v) == 6.0


# --- generated code -----------------------------------------------------------------------

def test_generated_gradients_read_like_numpy():
    x = tracer.constant(np.arange(6.0).reshape(2, 3), name="x")
    with GradientTape() as tape:
        tape.watch(x)
        out = np.sum(np.cumsum(np.sort(x, axis=0), axis=1) * [1.0, 2.0, 3.0])
    source = codegen.gradient_source(tape, out, [x])
    assert "np.cumsum(" in source and "np.argsort(x, axis=0, kind='stable')" in source


# --- errors that say what to use instead ----------------------------------------------

def _traced():
    x = tracer.constant(np.arange(1.0, 7.0).reshape(2, 3))
    tape = GradientTape()
    return x, tape


@pytest.mark.parametrize("call, error, words", [
    (lambda x: np.pad(x, 1, mode="empty"), TypeError, "modes supported are"),
    (lambda x: np.pad(x, 1, constant_values=x[0]), TypeError, "must be a scalar"),
    (lambda x: np.quantile(x, 0.5, method="bogus"), ValueError, "Use one of"),
    (lambda x: np.quantile(x, x[0, 0] / 10), TypeError, "plain numbers"),
    (lambda x: np.quantile(x, 1.5), ValueError, "range [0, 1]"),
    (lambda x: np.percentile(x, 150), ValueError, "range [0, 100]"),
    (lambda x: np.sort(x, order="a"), TypeError, "order="),
    (lambda x: np.cumsum(x, dtype=np.float32), TypeError, "dtype="),
    (lambda x: x.sort(), TypeError, "np.sort(t"),
    (lambda x: x.partition(1), TypeError, "np.partition(t"),
    (lambda x: np.full((2, 3), x[0, 0], dtype=float), TypeError, "np.broadcast_to"),
    (lambda x: np.average(x, axis=1, weights=[1.0, -1.0, 0.0]), ZeroDivisionError, "sum to zero"),
    (lambda x: np.average(x, weights=[1.0, 2.0, 3.0]), TypeError, "Axis must be specified"),
    (lambda x: np.select([x], [x]), TypeError, "boolean"),
    (lambda x: np.take_along_axis(x, np.zeros((2, 1)), axis=1), IndexError, "integer"),
    (lambda x: np.rot90(x, axes=(0, 0)), ValueError, "different"),
    (lambda x: np.vsplit(x[0], 1), ValueError, "2 or more dimensions"),
])
def test_unsupported_arguments_say_what_to_use(call, error, words):
    x, tape = _traced()
    with tape:
        tape.watch(x)
        with pytest.raises(error) as raised:
            call(x)
    assert words in str(raised.value)


def test_copyto_into_a_variable_asks_for_assign():
    v = tracer.Variable(np.zeros(3))
    with pytest.raises(TypeError, match=r"v\.assign"):
        np.copyto(v, 5.0)
    np.testing.assert_array_equal(v.numpy(), np.zeros(3))


def test_quantile_refuses_a_recorded_q_whether_tensor_or_variable():
    a = tracer.Variable(np.arange(5.0))
    for q in (tracer.Variable(0.3), tracer.constant(0.3)):
        with tracer.GradientTape() as tape:
            tape.watch(q)
            with pytest.raises(TypeError, match="q must be plain numbers"):
                np.quantile(a, q)
