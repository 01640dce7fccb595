"""``cholesky``, ``eigh`` and ``eigvalsh`` read one triangle of their input (``UPLO``, or
``upper`` for ``cholesky``) and the real part of its diagonal, so their derivatives are
those of what numpy computes, on any matrix: zero where numpy does not read, and
``tril(G + G^H)`` with the diagonal taken once where it does, as TensorFlow's ``eigh``
gradient.  The reference is finite differences of numpy's own functions on matrices
that are neither symmetric nor Hermitian, in reverse and forward mode, eagerly and in
generated code, to second order.
"""

import numpy as np
import pytest
from generated_gradients import assert_generated_gradients_match

import codegen
import tracer
from tracer.forward_accumulator import ForwardAccumulator

RNG = np.random.default_rng(11)


def _random(shape, complex_values):
    values = RNG.standard_normal(shape)
    return values + 1j * RNG.standard_normal(shape) if complex_values else values


def _positive_definite(shape, complex_values, upper):
    """Hermitian positive definite with eigenvalues 2, 4, 6, ..., plus what numpy does not
    read: noise in the other triangle and, if complex, in the diagonal's imaginary part."""
    n = shape[-1]
    q = np.linalg.qr(_random(shape, complex_values))[0]
    a = (q * np.arange(2.0, 2.0 * n + 1, 2.0)) @ np.conj(np.swapaxes(q, -1, -2))
    noise = _random(shape, complex_values)
    a = a + (np.tril(noise, -1) if upper else np.triu(noise, 1))
    return a + 1j * np.eye(n) * RNG.standard_normal(shape) if complex_values else a


def _weights(shape):
    return np.sin(1.3 * np.arange(1.0, 1.0 + np.prod(shape))).reshape(shape)


def _moduli(vectors):
    """A function of eigenvectors that does not depend on their signs or phases."""
    squares = np.abs(vectors) ** 2
    return squares * _weights(squares.shape[-2:])


FUNCTIONS = {
    "cholesky": (lambda a: np.linalg.cholesky(a), False),
    "cholesky-upper": (lambda a: np.linalg.cholesky(a, upper=True), True),
    "eigvalsh": (lambda a: np.linalg.eigvalsh(a) ** 3, False),
    "eigvalsh-U": (lambda a: np.linalg.eigvalsh(a, UPLO="U") ** 3, True),
    "eigh-vectors": (lambda a: _moduli(np.linalg.eigh(a)[1]), False),
    "eigh-vectors-U": (lambda a: _moduli(np.linalg.eigh(a, UPLO="u").eigenvectors), True),
}
CASES = [pytest.param(name, shape, complex_values, id=f"{name}-{'x'.join(map(str, shape))}"
                      f"-{'complex' if complex_values else 'real'}")
         for name in FUNCTIONS for shape, complex_values in [((3, 3), False), ((2, 4, 4), True)]]


def _differences(fn, a, direction, eps=1e-6):
    """The derivative of numpy's own ``fn`` at ``a`` along ``direction``."""
    return (fn(a + eps * direction) - fn(a - eps * direction)) / (2 * eps)


def _real_dot(x, y):
    return float(np.real(np.sum(np.conj(x) * y)))


@pytest.mark.parametrize("name, shape, complex_values", CASES)
def test_derivatives_are_those_of_what_numpy_computes(name, shape, complex_values,
                                                      monkeypatch):
    fn, upper = FUNCTIONS[name]
    a = _positive_definite(shape, complex_values, upper)
    direction = _random(shape, complex_values)
    expected = _differences(fn, a, direction)
    tensor = tracer.constant(a)
    with ForwardAccumulator(tensor, tracer.constant(direction)) as acc:
        out = fn(tensor)
    np.testing.assert_allclose(out.numpy(), fn(a), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(acc.jvp(out).numpy(), expected, rtol=1e-6, atol=1e-7)
    cotangent = _random(out.shape, np.iscomplexobj(out.numpy()))
    with tracer.GradientTape() as tape:
        tape.watch(tensor)
        out = fn(tensor)
    gradient = tape.gradient(out, tensor, output_gradients=tracer.constant(cotangent)).numpy()
    np.testing.assert_allclose(_real_dot(gradient, direction), _real_dot(cotangent, expected),
                               rtol=1e-6)
    unread = np.tril(gradient, -1) if upper else np.triu(gradient, 1)
    np.testing.assert_array_equal(unread, 0.0)
    np.testing.assert_allclose(np.imag(np.diagonal(gradient, axis1=-2, axis2=-1)), 0.0,
                               atol=1e-12)
    tracer.check_gradients(fn, a, order=2)
    assert_generated_gradients_match(fn, a, monkeypatch=monkeypatch)


def _sum_of_squared_eigenvalues(uplo):
    return lambda a: np.sum(np.linalg.eigvalsh(a, UPLO=uplo) ** 2)


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("shape, complex_values", [((4, 4), False), ((2, 3, 3), True)])
def test_eigenvalue_gradient_is_tensorflows_triangle(uplo, shape, complex_values):
    # sum(w**2) is the squared Frobenius norm of the Hermitian matrix numpy reads:
    # 2 |a_ij|**2 for each i > j (i < j for "U") and Re(a_ii)**2, so its gradient is
    # 4 a_ij there, 2 Re(a_ii) on the diagonal and 0 elsewhere; TensorFlow's too.
    a = _random(shape, complex_values)
    triangle = np.tril(a, -1) if uplo == "L" else np.triu(a, 1)
    expected = 4 * triangle + 2 * np.real(a) * np.eye(shape[-1])
    loss = _sum_of_squared_eigenvalues(uplo)
    tensor = tracer.constant(a, name="a")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensor)
        out = loss(tensor)
    np.testing.assert_allclose(tape.gradient(out, tensor).numpy(), expected, atol=1e-12)
    (generated,) = codegen.load(codegen.gradient_source(tape, out, [tensor])).gradient(a=a)
    np.testing.assert_allclose(generated, expected, atol=1e-12)


def test_second_derivative_of_the_eigenvalue_triangle_is_its_closed_form():
    # The gradient above is linear in a: along v its derivative is 4 tril(v, -1) + 2 diag(v).
    a, v = RNG.standard_normal((2, 4, 4)), RNG.standard_normal((2, 4, 4))
    tensor = tracer.constant(a)
    with tracer.GradientTape() as outer:
        outer.watch(tensor)
        with tracer.GradientTape() as inner:
            inner.watch(tensor)
            out = _sum_of_squared_eigenvalues("L")(tensor)
        product = np.sum(inner.gradient(out, tensor) * v)
    np.testing.assert_allclose(outer.gradient(product, tensor).numpy(),
                               4 * np.tril(v, -1) + 2 * v * np.eye(4), atol=1e-10)


@pytest.mark.parametrize("complex_values", [False, True])
def test_eigh_upper_gives_numpys_eigenvectors(complex_values):
    # LAPACK's eigenvectors from the upper triangle are not those from the lower
    # triangle of the adjoint, the same matrix: the signs (phases) differ.
    a = _random((3, 4, 4), complex_values)
    values, vectors = np.linalg.eigh(tracer.constant(a), UPLO="U")
    expected = np.linalg.eigh(a, UPLO="U")
    np.testing.assert_array_equal(vectors.numpy(), expected.eigenvectors)
    # (the values are eigvalsh's, which LAPACK computes without the vectors)
    np.testing.assert_allclose(values.numpy(), expected.eigenvalues, rtol=1e-13)
    np.testing.assert_array_equal(np.linalg.eigvalsh(tracer.constant(a), UPLO="u").numpy(),
                                  np.linalg.eigvalsh(a, UPLO="u"))


def test_gradients_through_eigh_upper_follow_numpys_signs(monkeypatch):
    # A function of the eigenvectors' signs: its derivative exists where numpy's signs
    # do not jump, and is that of numpy's own eigh(a, UPLO="U").
    a = _positive_definite((4, 4), False, upper=True)
    weights = _weights((4, 4))

    def signed(x):
        return np.sum(np.linalg.eigh(x, UPLO="U")[1] * weights)

    tensor = tracer.constant(a, name="a")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensor)
        out = signed(tensor)
    eager = tape.gradient(out, tensor).numpy()
    source = codegen.gradient_source(tape, out, [tensor])
    assert "np.linalg.eigh(a, UPLO='U')[1]" in source
    direction = RNG.standard_normal((4, 4))
    np.testing.assert_allclose(np.sum(eager * direction), _differences(signed, a, direction),
                               rtol=1e-6)
    np.testing.assert_allclose(codegen.load(source).gradient(a=a)[0], eager, rtol=1e-12)
    assert_generated_gradients_match(signed, a, monkeypatch=monkeypatch)


def test_cholesky_gradient_agrees_with_the_symmetric_one_along_symmetric_directions():
    # The symmetric gradient (JAX's, autograd's, TensorFlow's for cholesky) is the
    # Hermitian part of the triangular one: both give the derivative along symmetric
    # perturbations, the only ones that keep the input a covariance.
    a = _positive_definite((3, 3), False, upper=False)
    weights = _weights((3, 3))
    tensor = tracer.constant(a)
    with tracer.GradientTape() as tape:
        tape.watch(tensor)
        out = np.sum(np.linalg.cholesky(tensor) * weights)
    gradient = tape.gradient(out, tensor).numpy()
    symmetric = 0.5 * (gradient + gradient.T)
    direction = RNG.standard_normal((3, 3))
    direction = direction + direction.T
    along = _differences(lambda x: np.sum(np.linalg.cholesky(x) * weights), a, direction)
    np.testing.assert_allclose(np.sum(symmetric * direction), along, rtol=1e-6)
    np.testing.assert_allclose(np.sum(gradient * direction), along, rtol=1e-6)
