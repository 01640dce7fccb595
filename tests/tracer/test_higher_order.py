"""Higher derivatives: gradients computed while a tape records are recorded by it."""

import numpy as np
import pytest

import tracer
from tracer import GradientTape


def test_inner_gradient_is_recorded_by_the_outer_tape():
    x = tracer.constant(5.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = x * x
        dy = inner.gradient(y, x)
    assert dy == 10.0
    assert outer.gradient(dy, x) == 2.0


def _three_nested_derivatives(f, value):
    """f(x) and its first three derivatives at ``value``, one tape per order."""
    x = tracer.constant(value)
    with GradientTape() as t1:
        t1.watch(x)
        with GradientTape() as t2:
            t2.watch(x)
            with GradientTape() as t3:
                t3.watch(x)
                y = f(x)
            d1 = t3.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t1.gradient(d2, x)
    return float(y), float(d1), float(d2), float(d3)


def test_three_nested_tapes_give_the_third_derivative_of_a_cube():
    assert _three_nested_derivatives(lambda x: x ** 3, 3.0) == (27.0, 27.0, 18.0, 6.0)


def test_three_nested_tapes_match_the_tensorflow_guide():
    _, d1, d2, d3 = _three_nested_derivatives(lambda x: np.sin(x) * x * x, 0.7)
    np.testing.assert_allclose([d1, d2, d3], [1.27668, 3.11433, 1.50857], atol=1e-5)


def test_one_persistent_tape_gives_first_second_and_third_derivatives():
    x = tracer.constant(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x ** 3
        with pytest.warns(tracer.GradientTapeWarning):
            d1 = tape.gradient(y, x)
        with pytest.warns(tracer.GradientTapeWarning):
            d2 = tape.gradient(d1, x)
    d3 = tape.gradient(d2, x)
    assert (float(d1), float(d2), float(d3)) == (27.0, 18.0, 6.0)


def test_a_non_persistent_inner_gradient_in_its_own_context_is_still_seen_by_the_outer_tape():
    x = tracer.constant(2.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = x ** 3
            dy = inner.gradient(y, x)
    assert dy == 12.0
    assert outer.gradient(dy, x) == 12.0


def test_watching_is_per_tape():
    x1 = tracer.Variable(2.0, trainable=False)
    x2 = tracer.Variable(2.0, trainable=False)
    with GradientTape() as tape1:
        with GradientTape() as tape2:
            tape1.watch(x1)
            tape2.watch([x1, x2])
            y = x1 ** 3
            z = x2 ** 2
            dy, dz = tape2.gradient([y, z], [x1, x2])
    assert (float(dy), float(dz)) == (12.0, 4.0)
    d2y, d2z = tape1.gradient([dy, dz], [x1, x2])
    assert float(d2y) == 12.0
    assert d2z is None


def test_an_inner_gradient_used_in_the_outer_computation():
    x = tracer.constant(3.0)
    with GradientTape() as outer:
        outer.watch(x)
        y = x * x
        with GradientTape() as inner:
            inner.watch(y)
            z = 2.0 * y
        inner_grad = inner.gradient(z, [y])[0]
        assert inner_grad == 2.0
        y = y + inner_grad
    assert outer.gradient(y, [x])[0] == 6.0


def test_an_inner_gradient_computed_after_the_outer_context_is_a_constant():
    x = tracer.constant(3.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
    dy = inner.gradient(y, x)
    assert dy == 27.0
    assert outer.gradient(dy, x) is None


def test_hessian_is_the_outer_jacobian_of_the_inner_gradient():
    v = tracer.Variable([1.0, 2.0])
    with GradientTape() as outer:
        with GradientTape() as inner:
            f = np.sum(v ** 3) + v[0] * v[1]
        grad = inner.gradient(f, v)
    hessian = outer.jacobian(grad, v)
    np.testing.assert_allclose(hessian, [[6.0, 1.0], [1.0, 12.0]])


def test_second_derivative_through_a_variable_read_twice():
    v = tracer.Variable(1.5)
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = np.exp(v) * v
        dy = inner.gradient(y, v)
    expected = np.exp(1.5) * (1.5 + 2.0)
    np.testing.assert_allclose(outer.gradient(dy, v), expected)


def test_mixed_partials_from_nested_tapes_watching_different_tensors():
    x = tracer.constant(2.0)
    y = tracer.constant(3.0)
    with GradientTape() as outer:
        outer.watch(y)
        with GradientTape() as inner:
            inner.watch(x)
            f = x * x * y * y
        df_dx = inner.gradient(f, x)
    assert df_dx == 2 * 2.0 * 9.0
    assert outer.gradient(df_dx, y) == 2 * 2.0 * 2 * 3.0
