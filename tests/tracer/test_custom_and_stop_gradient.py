"""``stop_gradient`` and ``custom_gradient``."""

import numpy as np
import pytest

import tracer
from tracer import GradientTape


# --- stop_gradient ---------------------------------------------------------------

def test_stop_gradient_is_identity_forward_and_blocks_backward():
    x = tracer.constant(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * tracer.stop_gradient(x) + tracer.stop_gradient(x * x)
        stopped = tracer.stop_gradient(x * x)
    assert y == 18.0
    assert tape.gradient(y, x) == 3.0
    assert tape.gradient(stopped, x) is None
    assert tape.gradient(stopped, x, unconnected_gradients="zero") == 0.0


def test_stop_gradient_on_a_variable():
    v = tracer.Variable([1.0, 2.0])
    with GradientTape() as tape:
        y = np.sum(tracer.stop_gradient(v) * v)
    np.testing.assert_array_equal(tape.gradient(y, v), [1.0, 2.0])


# --- custom_gradient ---------------------------------------------------------------

@tracer.custom_gradient
def log1pexp(x):
    e = np.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return np.log(1 + e), grad


def test_custom_gradient_replaces_the_derivative():
    x = tracer.constant(np.array(100.0, dtype=np.float32))
    with GradientTape() as tape:
        tape.watch(x)
        with np.errstate(over="ignore"):
            y = log1pexp(x)
    assert np.isinf(y.numpy())
    grad = tape.gradient(y, x)
    assert grad == 1.0 and grad.dtype == np.float32


def test_custom_gradient_receives_the_upstream_gradient():
    @tracer.custom_gradient
    def bar(x, y):
        def grad(upstream):
            return upstream * y, upstream * x

        return x * y, grad

    a, b = tracer.constant(2.0), tracer.constant(3.0)
    with GradientTape() as tape:
        tape.watch([a, b])
        z = bar(a, b) * 5.0
    assert [float(g) for g in tape.gradient(z, [a, b])] == [15.0, 10.0]


def test_grad_fn_may_return_none_for_an_input():
    @tracer.custom_gradient
    def first_only(x, y):
        def grad(upstream):
            return upstream * y, None

        return x * y, grad

    a, b = tracer.constant(2.0), tracer.constant(3.0)
    with GradientTape() as tape:
        tape.watch([a, b])
        z = first_only(a, b)
    da, db = tape.gradient(z, [a, b])
    assert da == 3.0 and db is None


def test_grad_fn_returning_the_wrong_number_of_gradients_fails_at_gradient_time():
    @tracer.custom_gradient
    def two_inputs(x, y):
        return x + y, lambda upstream: upstream

    a, b = tracer.constant(2.0), tracer.constant(3.0)
    with GradientTape() as tape:
        tape.watch([a, b])
        z = two_inputs(a, b)
    with pytest.raises(ValueError, match="expected to return 2 gradients, but returned 1"):
        tape.gradient(z, [a, b])


def test_second_order_through_a_custom_gradient_differentiates_grad_fn():
    x = tracer.constant(1.5)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = log1pexp(x)
        dy = inner.gradient(y, x)
    sigmoid = 1 / (1 + np.exp(-1.5))
    np.testing.assert_allclose(dy, sigmoid)
    np.testing.assert_allclose(outer.gradient(dy, x), 0.149146, atol=1e-6)


def test_custom_gradient_is_one_op_on_the_tape():
    x = tracer.constant(1.0)
    with GradientTape() as tape:
        tape.watch(x)
        log1pexp(x)
    ops = [n for n in tape.graph if n.kind == "op"]
    assert ops[-1].op == "custom_gradient"
    assert ops[-1].params["function"] == "log1pexp"


def test_custom_gradient_works_without_a_tape():
    y = log1pexp(tracer.constant(0.0))
    np.testing.assert_allclose(y, np.log(2.0))


def test_custom_gradient_of_a_variable_argument():
    v = tracer.Variable(2.0)

    @tracer.custom_gradient
    def square(x):
        return x * x, lambda upstream: upstream * 2 * x

    with GradientTape() as tape:
        y = square(v)
    assert tape.gradient(y, v) == 4.0


def test_the_forward_may_use_numpy_functions_without_a_rule():
    @tracer.custom_gradient
    def cumulative(x):
        def grad(upstream):
            return np.flip(np.cumsum(np.flip(np.asarray(upstream))))

        return np.cumsum(x), grad

    x = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = cumulative(x) * np.array([1.0, 10.0, 100.0])
    np.testing.assert_array_equal(y, [1.0, 30.0, 600.0])
    np.testing.assert_array_equal(tape.gradient(y, x), [111.0, 110.0, 100.0])


def test_variables_read_in_the_forward_require_grad_fn_to_accept_variables():
    w = tracer.Variable(3.0, name="w")

    @tracer.custom_gradient
    def scale(x):
        return x * w, lambda upstream: upstream * w

    x = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match=r"must accept keyword argument 'variables'.*\[w\]"):
            scale(x)


def test_grad_fn_gives_variable_gradients_through_variables():
    w = tracer.Variable(3.0, name="w")
    frozen = tracer.Variable(10.0, trainable=False)

    @tracer.custom_gradient
    def scale(x):
        def grad(upstream, variables=None):
            assert variables == [w]
            return upstream * w * frozen, [upstream * x * frozen * 100.0]

        return x * w * frozen, grad

    x = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    dx, dw = tape.gradient(y, [x, w])
    assert dx == 30.0
    assert dw == 2000.0, "the variable's gradient comes from grad_fn, not from the forward"


def test_variable_gradients_of_the_wrong_count_are_rejected():
    w = tracer.Variable(3.0)

    @tracer.custom_gradient
    def scale(x):
        def grad(upstream, variables=None):
            return upstream * w, []

        return x * w, grad

    x = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    with pytest.raises(ValueError, match="expected to return 1 variable gradients, but returned 0"):
        tape.gradient(y, [x, w])


def test_second_order_through_a_custom_gradient_with_variables():
    w = tracer.Variable(2.0)

    @tracer.custom_gradient
    def scaled_square(x):
        def grad(upstream, variables=None):
            return upstream * 2 * x * w, [upstream * x * x]

        return x * x * w, grad

    x = tracer.constant(3.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = scaled_square(x)
        dx, dw = inner.gradient(y, [x, w])
    assert (float(dx), float(dw)) == (12.0, 9.0)
    assert [float(g) for g in outer.gradient(dx, [x, w])] == [4.0, 6.0]


@tracer.custom_gradient
def inverse(a):
    # np.linalg.tensorinv has no derivative rule: the user's gradient supplies it.
    inv = np.linalg.tensorinv(a, ind=1)

    def grad(upstream):
        return -(inv.T @ upstream @ inv.T)

    return inv, grad


A = np.array([[2.0, 1.0], [1.0, 3.0]])


def test_a_custom_gradient_over_an_unsupported_function_gives_first_derivatives():
    a = tracer.constant(A)
    with GradientTape() as tape:
        tape.watch(a)
        y = np.sum(inverse(a) * np.array([[1.0, 2.0], [3.0, 4.0]]))
    inv = np.linalg.inv(A)
    expected = -inv.T @ np.array([[1.0, 2.0], [3.0, 4.0]]) @ inv.T
    np.testing.assert_allclose(tape.gradient(y, a), expected)


def test_higher_order_through_an_unsupported_function_in_a_custom_forward_is_refused():
    a = tracer.constant(A)
    with GradientTape() as outer:
        outer.watch(a)
        with GradientTape() as inner:
            inner.watch(a)
            y = np.sum(inverse(a))
        with pytest.raises(tracer.UnsupportedOperation, match="higher-order") as info:
            inner.gradient(y, a)
    message = str(info.value)
    assert "inverse" in message and "np.linalg.tensorinv(a" in message
    assert "test_custom_and_stop_gradient.py:" in message


def test_an_outer_tape_that_does_not_track_the_inputs_does_not_refuse():
    a = tracer.constant(A)
    unrelated = tracer.constant(1.0)
    with GradientTape() as outer:
        outer.watch(unrelated)
        with GradientTape() as inner:
            inner.watch(a)
            y = np.sum(inverse(a))
        grad = inner.gradient(y, a)
    inv = np.linalg.inv(A)
    np.testing.assert_allclose(grad, -inv.T @ np.ones((2, 2)) @ inv.T)


def test_second_order_works_when_the_unsupported_function_sees_plain_values():
    @tracer.custom_gradient
    def cumulative(x):
        def grad(upstream):
            return np.triu(np.ones((3, 3))) @ upstream  # reversed cumulative sums

        return np.cumsum(x.numpy()), grad

    x = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = np.sum(cumulative(x) * x)
        dy = inner.gradient(y, x)
    np.testing.assert_array_equal(dy, [1.0 + 6.0, 3.0 + 5.0, 6.0 + 3.0])
    np.testing.assert_array_equal(outer.jacobian(dy, x), [[2, 1, 1], [1, 2, 1], [1, 1, 2]])


def _cube_with_gradient(grad_of):
    @tracer.custom_gradient
    def cube(x):
        return x ** 3, lambda dy: grad_of(dy, x)
    return cube


def test_custom_gradient_sees_each_upstream_gradient_afresh():
    cube = _cube_with_gradient(lambda dy, x: dy * 3 * x ** 2)
    x = tracer.constant(2.0)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = cube(x)
    upstream = np.array(1.0)
    assert float(tape.gradient(y, x, output_gradients=upstream)) == 12.0
    upstream[...] = 5.0
    assert float(tape.gradient(y, x, output_gradients=upstream)) == 60.0


@pytest.mark.parametrize("grad_of, problem", [
    (lambda dy, x: dy, "shape"),
    (lambda dy, x: np.ones((2, 3)), "shape"),
    (lambda dy, x: np.ones(3, dtype=int), "dtype"),
])
def test_custom_gradients_of_the_wrong_shape_or_dtype_are_refused(grad_of, problem):
    @tracer.custom_gradient
    def total_square(x):
        return np.sum(x * x), lambda dy: grad_of(dy, x)

    x = tracer.constant([1.0, 2.0, 3.0])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = total_square(x) + np.sum(x)
    with pytest.raises(ValueError, match=problem):
        tape.gradient(y, x)


def test_a_custom_gradient_function_returns_one_value():
    @tracer.custom_gradient
    def pair(x):
        return (x * 2, x * 3), lambda dy: dy

    x = tracer.constant([1.0, 2.0])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match="one tensor"):
            pair(x)
