"""Complex gradients follow TensorFlow's convention.

For a real loss L and z = x + iy the gradient is dL/dx + i dL/dy: for a
holomorphic f the VJP is g * conj(f'(z)), for a complex-linear map M it is
M^H g, and a real input gets the real part.  JAX and autograd return the
conjugate.  Gradients keep their source's dtype; real-only computations
carry no trace of any of this.
"""

import numpy as np
import pytest

from generated_gradients import assert_generated_gradients_match

import codegen
import ir
import tracer
from ir.primitive import AS_WRITTEN, Primitive
from tracer import GradientTape
from tracer.core import NO_PARAMS, apply

Z = np.array([1.0 + 2.0j, -0.5 + 0.3j, 2.0 - 1.0j])
W = np.array([0.3 - 1.0j, 1.5 + 0.5j, -1.0 - 2.0j])


def _gradient(f, *values, seed=None):
    tensors = [tracer.constant(v) for v in values]
    with GradientTape() as tape:
        tape.watch(tensors)
        out = f(*tensors)
    upstream = None if seed is None else tracer.constant(seed)
    return tape.gradient(out, tensors, output_gradients=upstream)


# --- the convention ----------------------------------------------------------------

def test_squared_modulus_has_gradient_2z_not_its_conjugate():
    x = tracer.constant(1 + 2j)
    with GradientTape() as tape:
        tape.watch(x)
        y = abs(x) ** 2
    gradient = tape.gradient(y, x)
    assert gradient.dtype == np.complex128
    assert complex(gradient) == 2 + 4j  # 2 * x; JAX and autograd give 2 * conj(x) = 2 - 4j


def test_a_product_sends_each_factor_the_conjugate_of_the_other():
    dz, dw = _gradient(lambda z, w: z * w, Z, W)
    np.testing.assert_allclose(dz.numpy(), np.conj(W))
    np.testing.assert_allclose(dw.numpy(), np.conj(Z))


def test_a_holomorphic_function_gets_the_conjugate_derivative_times_the_seed():
    seed = np.array([1.0 - 1.0j, 0.5j, 2.0])
    (dz,) = _gradient(np.sin, Z, seed=seed)
    np.testing.assert_allclose(dz.numpy(), seed * np.conj(np.cos(Z)))


def test_non_holomorphic_functions_follow_the_convention():
    (real,) = _gradient(np.real, Z)
    (imag,) = _gradient(np.imag, Z)
    (conj,) = _gradient(lambda z: np.imag(np.conj(z)), Z)
    (angle,) = _gradient(np.angle, Z)
    (modulus,) = _gradient(np.abs, Z)
    np.testing.assert_allclose(real.numpy(), np.ones(3))
    np.testing.assert_allclose(imag.numpy(), np.full(3, 1j))
    np.testing.assert_allclose(conj.numpy(), np.full(3, -1j))
    np.testing.assert_allclose(angle.numpy(), 1j * Z / abs(Z) ** 2)
    np.testing.assert_allclose(modulus.numpy(), Z / abs(Z))
    assert all(g.dtype == np.complex128 for g in (real, imag, conj, angle, modulus))


def test_abs_at_complex_zero_has_gradient_zero():
    (dz,) = _gradient(np.abs, np.zeros(2, np.complex128))
    np.testing.assert_array_equal(dz.numpy(), np.zeros(2))


def test_a_real_input_on_a_complex_path_gets_a_real_gradient():
    x = np.array([0.5, -1.5])
    (dx,) = _gradient(lambda x: abs(x * (1 + 1j)) ** 2, x)
    assert dx.dtype == np.float64
    np.testing.assert_allclose(dx.numpy(), 4 * x)
    (dx,) = _gradient(lambda x: np.exp(1j * x), x, seed=np.array([1j, 1.0]))
    # d/dx exp(ix) = i exp(ix); the cotangent is Re(conj(i exp(ix)) * seed).
    np.testing.assert_allclose(dx.numpy(), np.real(np.conj(1j * np.exp(1j * x)) * [1j, 1.0]))


def test_gradient_descent_on_a_complex_variable_follows_the_gradient():
    v = tracer.Variable(1.0 + 1.0j)
    for _ in range(50):
        with GradientTape() as tape:
            loss = abs(v - (2.0 - 3.0j)) ** 2
        v.assign_sub(0.1 * tape.gradient(loss, v))
    # TensorFlow's convention points uphill, so descent reaches the minimum.
    np.testing.assert_allclose(v.numpy(), 2.0 - 3.0j, atol=1e-4)


def test_matmul_sends_the_conjugate_transpose():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    b = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    seed = rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2))
    da, db = _gradient(np.matmul, a, b, seed=seed)
    np.testing.assert_allclose(da.numpy(), seed @ b.conj().T)
    np.testing.assert_allclose(db.numpy(), a.conj().T @ seed)


def test_a_custom_gradient_is_taken_in_the_same_convention():
    @tracer.custom_gradient
    def square(z):
        return z * z, lambda g: g * np.conj(2 * z)

    (dz,) = _gradient(square, Z)
    np.testing.assert_allclose(dz.numpy(), np.conj(2 * Z))


def test_ordering_functions_refuse_complex_gradients():
    with pytest.raises(TypeError, match="maximum has no derivative for complex values"):
        _gradient(np.maximum, Z, W)


# --- FFTs against their dense matrices ----------------------------------------------

def _dense(transform, size, dtype=float):
    """Columns: the transform of each basis vector (and, for complex inputs, of i times it)."""
    eye = np.eye(size, dtype=dtype)
    return np.stack([transform(column) for column in eye], axis=-1)


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_fft_gradient_is_the_conjugate_transpose_of_the_dft(norm):
    seed = np.array([1.0 + 2.0j, -1.0j, 0.5, 2.0 - 1.0j])
    (dz,) = _gradient(lambda z: np.fft.fft(z, norm=norm), W[:3], seed=np.resize(seed, 3))
    matrix = _dense(lambda e: np.fft.fft(e, norm=norm), 3)
    np.testing.assert_allclose(dz.numpy(), matrix.conj().T @ np.resize(seed, 3))
    if norm is None:
        np.testing.assert_allclose(dz.numpy(), 3 * np.fft.ifft(np.resize(seed, 3)))


@pytest.mark.parametrize("n", [4, 5])
def test_rfft_gradient_is_the_real_part_of_the_adjoint(n):
    x = np.linspace(-1.0, 1.0, n)
    seed = (np.arange(n // 2 + 1) + 1.0) * (1 - 0.5j)
    (dx,) = _gradient(np.fft.rfft, x, seed=seed)
    matrix = _dense(np.fft.rfft, n)
    assert dx.dtype == np.float64
    np.testing.assert_allclose(dx.numpy(), np.real(matrix.conj().T @ seed))


@pytest.mark.parametrize("n", [4, 5])
def test_irfft_gradient_weights_each_bin_by_its_conjugate_partners(n):
    size = n // 2 + 1
    z = W[:1].repeat(size)
    seed = np.linspace(1.0, 2.0, n)
    (dz,) = _gradient(lambda z: np.fft.irfft(z, n=n), z, seed=seed)
    # dL/dRe and dL/dIm of each input bin, by the real-linear map's columns.
    real_columns = _dense(lambda e: np.fft.irfft(e, n=n), size)
    imag_columns = _dense(lambda e: np.fft.irfft(1j * e, n=n), size)
    np.testing.assert_allclose(dz.numpy(), seed @ real_columns + 1j * (seed @ imag_columns),
                               atol=1e-12)


# --- dtypes and order two -------------------------------------------------------------

def test_complex64_gradients_stay_complex64_and_float32_ones_float32():
    z = tracer.constant(Z.astype(np.complex64))
    x = tracer.constant(np.array([0.5, 1.0, 1.5], np.float32))
    with GradientTape() as tape:
        tape.watch([z, x])
        y = np.sum(np.abs(np.fft.fft(z * x)) ** 2)
    graph, targets, sources, _ = tape.graph_of(y, [z, x])
    dz, dx = tape.gradient(y, [z, x])
    assert (dz.dtype, dx.dtype) == (np.complex64, np.float32)
    adjoint = ir.adjoint(graph, targets, sources)
    wide = [n.op for n in adjoint if n.kind == "op" and n.dtype in (np.float64, np.complex128)]
    assert not wide, f"double precision in a single precision gradient: {wide}"


def test_second_derivatives_through_complex_values():
    z = tracer.constant(1.0 - 2.0j)
    with GradientTape() as outer:
        outer.watch(z)
        with GradientTape() as inner:
            inner.watch(z)
            y = abs(z) ** 2
        first = inner.gradient(y, z)
    # first = 2z is complex-linear in z, with derivative 2.
    assert complex(first) == 2.0 - 4.0j
    np.testing.assert_allclose(outer.gradient(first, z).numpy(), 2.0, atol=1e-15)


@pytest.mark.parametrize("f", [
    lambda z: np.sin(z) * np.conj(z),
    lambda z: np.angle(z) * np.abs(z) ** 3,
    lambda z: np.fft.irfft(np.fft.fft(z) * z, n=4),
    lambda z: np.real(z) ** 2 * np.imag(z) + np.log(z),
], ids=["sin-conj", "angle-abs", "fft-irfft", "parts-log"])
def test_check_gradients_passes_to_second_order(f):
    tracer.check_gradients(f, W, order=2)


_jax_square = Primitive("test_complex.square_in_jax_convention", np.square,
                        complex_rules=AS_WRITTEN, vjps=(lambda g, out, z: g * (2 * z),))


def test_check_gradients_refuses_the_conjugate_convention():
    def square(z):
        return apply(_jax_square, (z,), NO_PARAMS)

    with pytest.raises(AssertionError, match="disagrees with central differences"):
        tracer.check_gradients(square, W)
    tracer.check_gradients(square, np.real(W))  # real values have no convention to differ in


# --- generated code and real-only cost ------------------------------------------------

def test_generated_code_gives_the_eager_complex_gradient():
    z = tracer.constant(Z, name="z")
    x = tracer.constant(np.array([0.5, 1.0, 1.5]), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch([z, x])
        y = np.sum(np.abs(np.sin(z) * x) + np.imag(np.fft.fft(z * x)))
    source = codegen.gradient_source(tape, y, [z, x])
    generated = codegen.load(source).gradient(z=Z, x=x.numpy())
    eager = tape.gradient(y, [z, x])
    assert "np.conj(" in source
    for g, e in zip(generated, eager):
        assert g.dtype == e.dtype
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-12)


def test_real_gradients_have_no_conjugates_or_real_parts():
    x = tracer.constant(np.array([0.5, 1.0, 1.5]))
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.sin(x) * np.exp(x) @ np.ones((3, 2)))
    graph, targets, sources, _ = tape.graph_of(y, [x])
    adjoint = ir.adjoint(graph, targets, sources)
    assert not {n.op for n in adjoint if n.kind == "op"} & {"conjugate", "real"}


# --- Cholesky and slogdet of complex matrices -------------------------------------------

def _complex_matrices(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape) + 3 * np.eye(shape[-1])


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_slogdet_gradients_are_the_adjoint_inverse(shape):
    # d log|det a| = Re tr(a^-1 da) and d sign = i sign Im tr(a^-1 da): in TensorFlow's
    # convention their gradients are a^-H and -i Im(conj(g) sign) a^-H.
    a = _complex_matrices(shape, 1)
    seed = np.exp(1j * np.arange(1.0, 1.0 + np.prod(shape[:-2])).reshape(shape[:-2]))
    inverse_adjoint = np.conj(np.swapaxes(np.linalg.inv(a), -1, -2))
    (logabsdet,) = _gradient(lambda a: np.linalg.slogdet(a).logabsdet, a)
    (sign,) = _gradient(lambda a: np.linalg.slogdet(a).sign, a, seed=seed)
    np.testing.assert_allclose(logabsdet.numpy(), inverse_adjoint, rtol=1e-12)
    scale = np.asarray(-1j * np.imag(np.conj(seed) * np.linalg.slogdet(a).sign))
    np.testing.assert_allclose(sign.numpy(), scale[..., None, None] * inverse_adjoint,
                               rtol=1e-12)
    tracer.check_gradients(lambda a: np.multiply(*np.linalg.slogdet(a)), a, order=2)


def test_slogdet_recombined_differentiates_as_det():
    a = _complex_matrices((3, 3), 2)
    seed = 0.5 - 2.0j
    (via_slogdet,) = _gradient(lambda a: np.linalg.slogdet(a)[0]
                               * np.exp(np.linalg.slogdet(a)[1]), a, seed=seed)
    (via_det,) = _gradient(np.linalg.det, a, seed=seed)
    np.testing.assert_allclose(via_slogdet.numpy(), via_det.numpy(), rtol=1e-12)


def test_complex_cholesky_gradients_in_closed_form():
    # For a = L L^H read off the lower triangle: sum |L|^2 = tr(a) (the diagonal's real
    # part), and 2 sum log(diag(L)) = log det a, whose gradient for Hermitian
    # perturbations is a^-1, and on the triangle numpy reads 2 tril(a^-1, -1) + diag(a^-1).
    a = _complex_matrices((2, 3, 3), 3)
    a = a @ np.conj(np.swapaxes(a, -1, -2)) + np.triu(_complex_matrices((2, 3, 3), 4), 1)
    (trace,) = _gradient(lambda a: np.sum(np.abs(np.linalg.cholesky(a)) ** 2), a)
    np.testing.assert_allclose(trace.numpy(), np.broadcast_to(np.eye(3), a.shape), atol=1e-12)
    (log_det,) = _gradient(lambda a: 2 * np.sum(np.log(np.real(np.diagonal(
        np.linalg.cholesky(a), axis1=-2, axis2=-1)))), a)
    hermitian = np.tril(a, -1) + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))
    inverse = np.linalg.inv(hermitian + np.real(a) * np.eye(3))
    expected = 2 * np.tril(inverse, -1) + np.real(inverse) * np.eye(3)
    np.testing.assert_allclose(log_det.numpy(), expected, rtol=1e-10, atol=1e-12)
    assert log_det.dtype == np.complex128


@pytest.mark.parametrize("upper", [False, True])
def test_complex_cholesky_and_slogdet_in_generated_code(upper, monkeypatch):
    a = _complex_matrices((2, 3, 3), 5)
    a = a @ np.conj(np.swapaxes(a, -1, -2))

    def f(a):
        factor = np.linalg.cholesky(a, upper=upper)
        return np.abs(factor) ** 2 * np.linalg.slogdet(factor + 1j).sign[..., None, None]

    tracer.check_gradients(f, a, order=2)
    assert_generated_gradients_match(f, a, monkeypatch=monkeypatch)
