"""ForwardAccumulator's semantics (TensorFlow's) and the functional transformations."""

import numpy as np
import pytest

import tracer
from tracer import functional
from tracer.forward_accumulator import ForwardAccumulator


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hessian(x):
    """The closed form, for checking."""
    n = len(x)
    H = np.zeros((n, n))
    i = np.arange(n - 1)
    H[i, i] += 1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0
    H[i + 1, i + 1] += 200.0
    H[i, i + 1] = H[i + 1, i] = -400.0 * x[:-1]
    return H


X = np.array([0.5, -0.3, 1.2, 0.7, -1.1])


def test_jvp_of_a_function():
    x = tracer.constant([0.3, -1.2, 2.0])
    v = np.array([1.0, 0.5, -2.0])
    with ForwardAccumulator(x, v) as acc:
        y = np.sin(x) * x
    np.testing.assert_allclose(acc.jvp(y), (np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy())) * v)


def test_values_not_computed_from_primals_have_no_tangent():
    x, w = tracer.constant(2.0), tracer.constant(5.0)
    with ForwardAccumulator(x, 1.0) as acc:
        y = w * 3.0
        z = x * w
    assert acc.jvp(y) is None
    assert acc.jvp(y, unconnected_gradients=tracer.UnconnectedGradients.ZERO).numpy() == 0.0
    assert acc.jvp(z).numpy() == 5.0
    assert acc.jvp({"a": z, "b": [y]}) == {"a": acc.jvp(z), "b": [None]}


def test_ops_outside_the_context_are_not_seen():
    x = tracer.constant(2.0)
    acc = ForwardAccumulator(x, 1.0)
    y = x * x
    assert acc.jvp(y) is None


def test_third_derivative_from_nested_accumulators():
    x = tracer.constant(3.0)
    with ForwardAccumulator(x, 1.0) as third:
        with ForwardAccumulator(x, 1.0) as second:
            with ForwardAccumulator(x, 1.0) as first:
                y = x ** 3
            d1 = first.jvp(y)
        d2 = second.jvp(d1)
    assert (y.numpy(), d1.numpy(), d2.numpy(), third.jvp(d2).numpy()) == (27.0, 27.0, 18.0, 6.0)


def test_forward_over_reverse_hessian_vector_product():
    x = tracer.constant(X)
    v = np.linspace(-1.0, 1.0, len(X))
    with ForwardAccumulator(x, v) as acc:
        with tracer.GradientTape() as tape:
            tape.watch(x)
            y = rosenbrock(x)
        g = tape.gradient(y, x)
    np.testing.assert_allclose(acc.jvp(g), rosenbrock_hessian(X) @ v, rtol=1e-12)


def test_reverse_over_forward():
    x = tracer.constant(X)
    v = np.ones(len(X))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        with ForwardAccumulator(x, v) as acc:
            y = rosenbrock(x)
        directional = acc.jvp(y)
    np.testing.assert_allclose(tape.gradient(directional, x), rosenbrock_hessian(X) @ v,
                               rtol=1e-12)


def test_variables_as_primals():
    v = tracer.Variable([1.0, 2.0])
    with ForwardAccumulator(v, [1.0, 0.0]) as acc:
        y = np.sum(v * v)
    assert acc.jvp(y).numpy() == 2.0
    assert acc.jvp(v).numpy().tolist() == [1.0, 0.0]


def test_custom_gradient_forward_is_differentiated():
    @tracer.custom_gradient
    def square(a):
        return a * a, lambda g: 2.0 * a * g

    x = tracer.constant(3.0)
    with ForwardAccumulator(x, 1.0) as acc:
        y = square(x)
    assert acc.jvp(y).numpy() == 6.0


@pytest.mark.parametrize("primal, tangent, error, match", [
    (tracer.constant([1.0, 2.0]), [1.0], ValueError, "shape"),
    (tracer.constant([1, 2]), [1, 1], ValueError, "dtype"),
    (np.array([1.0]), [1.0], TypeError, "tracer.constant"),
])
def test_bad_primals_and_tangents(primal, tangent, error, match):
    with pytest.raises(error, match=match):
        ForwardAccumulator(primal, tangent)


def test_primals_and_tangents_must_pair_up():
    with pytest.raises(ValueError, match="one tangent per primal"):
        ForwardAccumulator([tracer.constant(1.0), tracer.constant(2.0)], [1.0])


def test_an_accumulator_cannot_be_entered_twice():
    acc = ForwardAccumulator(tracer.constant(1.0), 1.0)
    with acc:
        with pytest.raises(ValueError, match="already active"):
            acc.__enter__()


# --- functional transformations ---------------------------------------------------------

def test_grad_and_value_and_grad():
    value, gradient = functional.value_and_grad(rosenbrock)(X)
    assert value.shape == () and gradient.shape == X.shape
    np.testing.assert_allclose(gradient, functional.grad(rosenbrock)(X))
    np.testing.assert_allclose(value, rosenbrock(X))


def test_grad_by_several_arguments():
    gx, gy = functional.grad(lambda x, y: np.sum(x * y ** 2), argnums=(0, 1))(
        np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    np.testing.assert_allclose(gx, [9.0, 16.0])
    np.testing.assert_allclose(gy, [6.0, 16.0])


def test_grad_refuses_vector_functions():
    with pytest.raises(ValueError, match="jacobian"):
        functional.grad(np.sin)(X)


def test_grad_of_grad_composes():
    assert functional.grad(functional.grad(lambda s: s ** 3))(3.0).numpy() == 18.0


def test_jacobian_shape():
    W = np.arange(6.0).reshape(2, 3)
    jac = functional.jacobian(lambda x: np.tanh(W @ x))(np.array([0.1, 0.2, 0.3]))
    assert jac.shape == (2, 3)
    h = np.tanh(W @ [0.1, 0.2, 0.3])
    np.testing.assert_allclose(jac, (1 - h ** 2)[:, None] * W)


def test_hessian_and_hvp_match_the_closed_form():
    H = functional.hessian(rosenbrock)(X)
    assert H.shape == (5, 5)
    np.testing.assert_allclose(H, rosenbrock_hessian(X), rtol=1e-12)
    v = np.arange(5.0)
    np.testing.assert_allclose(functional.hvp(rosenbrock)(X, v), rosenbrock_hessian(X) @ v)


def test_hessian_of_a_matrix_argument():
    A = np.array([[1.0, 2.0], [0.5, -1.0]])
    H = functional.hessian(lambda M: np.sum(M ** 3))(A)
    assert H.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(H.reshape(4, 4), np.diag(6.0 * A.ravel()))
