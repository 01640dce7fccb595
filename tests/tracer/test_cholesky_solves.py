"""``tracer.scipy.linalg.cho_factor`` reads the triangle scipy reads (``lower``), and
``cho_solve`` solves with the factor and its adjoint: scipy's values on real and complex
matrices whose other triangle holds noise, and the derivatives of scipy's own functions
there, to second order, eagerly and in generated code."""

import numpy as np
import pytest
from generated_gradients import assert_generated_gradients_match

import tracer

scipy_linalg = pytest.importorskip("scipy.linalg")
from tracer.scipy import linalg  # noqa: E402

RNG = np.random.default_rng(5)


def _random(shape, complex_values):
    values = RNG.standard_normal(shape)
    return values + 1j * RNG.standard_normal(shape) if complex_values else values


def _read_by_scipy(complex_values, lower):
    """Hermitian positive definite in the triangle ``lower`` names, noise in the other."""
    root = _random((3, 3), complex_values)
    a = root @ np.conj(root.T) + 3 * np.eye(3)
    noise = _random((3, 3), complex_values)
    return a + (np.triu(noise, 1) if lower else np.tril(noise, -1))


@pytest.mark.parametrize("complex_values", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
def test_cholesky_solves_are_scipys_and_differentiate_as_scipys(lower, complex_values,
                                                                monkeypatch):
    a, b = _read_by_scipy(complex_values, lower), _random((3, 2), complex_values)

    def ours(a, b):
        return linalg.cho_solve(linalg.cho_factor(a, lower), b)

    def theirs(a, b):
        return scipy_linalg.cho_solve(scipy_linalg.cho_factor(a, lower), b)

    triangle = np.tril if lower else np.triu
    np.testing.assert_allclose(triangle(linalg.cho_factor(tracer.constant(a), lower)[0].numpy()),
                               triangle(scipy_linalg.cho_factor(a, lower)[0]), rtol=1e-12)
    np.testing.assert_allclose(ours(tracer.constant(a), b).numpy(), theirs(a, b), rtol=1e-12)
    direction = _random((3, 3), complex_values)
    eps = 1e-6
    expected = (theirs(a + eps * direction, b) - theirs(a - eps * direction, b)) / (2 * eps)
    tensor = tracer.constant(a)
    cotangent = _random((3, 2), complex_values)
    with tracer.GradientTape() as tape:
        tape.watch(tensor)
        out = ours(tensor, b)
    gradient = tape.gradient(out, tensor, output_gradients=tracer.constant(cotangent)).numpy()
    np.testing.assert_allclose(np.real(np.sum(np.conj(gradient) * direction)),
                               np.real(np.sum(np.conj(cotangent) * expected)), rtol=1e-6)
    tracer.check_gradients(ours, a, b, order=2)
    assert_generated_gradients_match(ours, a, b, monkeypatch=monkeypatch)
