"""``jacobian`` and ``batch_jacobian``: shapes, structure, unconnected sources, errors."""

import numpy as np
import pytest

import tracer
from tracer import GradientTape


def test_elementwise_jacobian_is_diagonal():
    x = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    jac = tape.jacobian(y, x)
    assert isinstance(jac, tracer.Tensor)
    np.testing.assert_array_equal(jac, np.diag([2.0, 4.0, 6.0]))


def test_jacobian_shape_is_target_shape_then_source_shape():
    a = tracer.constant([[1.0, 2.0], [3.0, 4.0]])
    b = np.arange(6.0).reshape(2, 3)
    with GradientTape() as tape:
        tape.watch(a)
        y = a @ b
    jac = tape.jacobian(y, a)
    assert jac.shape == (2, 3, 2, 2)
    expected = np.einsum("ik,lj->ijkl", np.eye(2), b)
    np.testing.assert_array_equal(jac, expected)


def test_jacobian_of_a_product_of_the_source_with_itself():
    m = tracer.constant([[1.0, 2.0], [3.0, 4.0]])
    with GradientTape() as tape:
        tape.watch(m)
        y = m @ m
    value = m.numpy()
    expected = (np.einsum("ik,lj->ijkl", np.eye(2), value)
                + np.einsum("ik,jl->ijkl", value, np.eye(2)))
    np.testing.assert_array_equal(tape.jacobian(y, m), expected)


def test_jacobian_of_a_scalar_target_has_the_sources_shape():
    x = tracer.constant([[1.0, 2.0], [3.0, 4.0]])
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * x)
    np.testing.assert_array_equal(tape.jacobian(y, x), 2.0 * x.numpy())


def test_jacobian_mirrors_the_structure_of_sources():
    x = tracer.constant([1.0, 2.0])
    v = tracer.Variable(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * v
    jac = tape.jacobian(y, {"x": x, "v": [v]})
    np.testing.assert_array_equal(jac["x"], np.diag([3.0, 3.0]))
    assert type(jac["v"]) is list
    np.testing.assert_array_equal(jac["v"][0], [1.0, 2.0])


def test_jacobian_of_an_unconnected_source_is_none_or_zeros():
    x = tracer.constant([1.0, 2.0])
    unused = tracer.constant(np.ones((3,), dtype=np.float32))
    with GradientTape(persistent=True) as tape:
        tape.watch([x, unused])
        y = x * 2.0
    assert tape.jacobian(y, unused) is None
    zeros = tape.jacobian(y, unused, unconnected_gradients="zero")
    assert zeros.shape == (2, 3) and zeros.dtype == np.float32
    np.testing.assert_array_equal(zeros, 0.0)


def test_jacobian_of_an_empty_target_is_an_empty_array():
    x = tracer.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x[:0] * 2.0
    jac = tape.jacobian(y, x)
    assert jac.shape == (0, 2)


def test_jacobian_rows_with_an_unconnected_element_are_zero():
    x = tracer.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = np.stack([x[0] * 3.0, tracer.constant(5.0)])
    np.testing.assert_array_equal(tape.jacobian(y, x), [[3.0, 0.0], [0.0, 0.0]])


def test_jacobian_works_inside_a_non_persistent_context_and_consumes_the_tape():
    x = tracer.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
        jac = tape.jacobian(y, x)
    np.testing.assert_array_equal(jac, np.diag([2.0, 4.0]))
    with pytest.raises(RuntimeError, match="one set of gradients"):
        tape.jacobian(y, x)


@pytest.mark.parametrize("shape", [(2,), (2, 3), (0,)])
def test_jacobian_row_by_row_equals_the_vectorised_one(shape):
    # One gradient per element needs no persistent tape: it is one gradient call.
    x = tracer.constant(np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape))
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sin(x) * np.sum(x)
    expected = tape.jacobian(y, x)
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sin(x) * np.sum(x)
    jac = tape.jacobian(y, x, parallel_iterations=4, experimental_use_pfor=False)
    np.testing.assert_allclose(jac, expected, rtol=1e-14)


def test_batch_jacobian_row_by_row_equals_the_vectorised_one():
    x = tracer.constant(np.arange(6.0).reshape(2, 3))
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.tanh(x) * np.sum(x, axis=1, keepdims=True)
    np.testing.assert_allclose(tape.batch_jacobian(y, x, experimental_use_pfor=False),
                               tape.batch_jacobian(y, x), rtol=1e-14)


def test_jacobian_of_a_variable_target():
    v = tracer.Variable([1.0, 2.0])
    with GradientTape() as tape:
        v * 1.0
    np.testing.assert_array_equal(tape.jacobian(v, v), np.eye(2))


def test_hessian_of_the_guide_function():
    v = tracer.Variable([1.0, 2.0])
    with GradientTape() as outer:
        with GradientTape() as inner:
            f = np.sum(v ** 3) + v[0] * v[1]
        grad = inner.gradient(f, v)
    np.testing.assert_allclose(outer.jacobian(grad, v), [[6.0, 1.0], [1.0, 12.0]])


# --- batch_jacobian ----------------------------------------------------------------

def test_batch_jacobian_of_an_elementwise_product_is_per_row_diagonal():
    x = tracer.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tracer.constant([[3.0, 4.0], [5.0, 6.0]])
    with GradientTape() as tape:
        tape.watch(x)
        z = x * x * y
    jac = tape.batch_jacobian(z, x)
    assert jac.shape == (2, 2, 2)
    expected = np.stack([np.diag(row) for row in 2.0 * x.numpy() * y.numpy()])
    np.testing.assert_array_equal(jac, expected)


def test_batch_jacobian_of_a_matmul_is_the_transposed_weights_per_row():
    x = tracer.constant(np.arange(6.0).reshape(2, 3))
    w = np.arange(12.0).reshape(3, 4)
    with GradientTape() as tape:
        tape.watch(x)
        y = x @ w
    jac = tape.batch_jacobian(y, x)
    assert jac.shape == (2, 4, 3)
    np.testing.assert_array_equal(jac, np.stack([w.T, w.T]))


def test_batch_jacobian_shape_with_more_dimensions():
    x = tracer.constant(np.ones((2, 3, 4)))
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x, axis=2) * 2.0
    jac = tape.batch_jacobian(y, x)
    assert jac.shape == (2, 3, 3, 4)
    np.testing.assert_array_equal(jac[0, 1], [[0.0] * 4, [2.0] * 4, [0.0] * 4])


def test_batch_jacobian_of_an_unconnected_target_is_zeros_even_with_none():
    x = tracer.constant(np.ones((2, 3), dtype=np.float32))
    with GradientTape() as tape:
        tape.watch(x)
        y = tracer.constant(np.ones((2, 4)))
    jac = tape.batch_jacobian(y, x)
    assert jac.shape == (2, 4, 3) and jac.dtype == np.float32
    np.testing.assert_array_equal(jac, 0.0)


def test_batch_jacobian_rejects_mismatched_first_dimensions():
    x = tracer.constant(np.ones((2, 2)))
    with GradientTape() as tape:
        tape.watch(x)
        y = np.concatenate([x, x]) * 1.0
    with pytest.raises(ValueError, match=r"Need first dimension of target shape \(\(4, 2\)\) "
                                         r"and source shape \(\(2, 2\)\) to match"):
        tape.batch_jacobian(y, x)
    np.testing.assert_array_equal(tape.gradient(y, x), np.full((2, 2), 2.0))


def test_batch_jacobian_rejects_rank_below_two():
    x = tracer.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match=r"Shape \(2,\) must have rank at least 2"):
        tape.batch_jacobian(y, x)


def test_batch_jacobian_is_recorded_by_an_outer_tape():
    x = tracer.constant([[1.0, 2.0]])
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = x ** 3
        jac = inner.batch_jacobian(y, x)
    np.testing.assert_array_equal(jac, [[[3.0, 0.0], [0.0, 12.0]]])
    np.testing.assert_array_equal(outer.gradient(jac, x), [[6.0, 12.0]])
