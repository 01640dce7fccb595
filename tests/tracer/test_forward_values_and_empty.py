"""Regressions: values that drifted from numpy's on complex and on zero-size inputs.

Each function runs on plain arrays and on tensors under a tape; values,
shapes and dtypes must be numpy's, and gradients have their sources' shapes
and dtypes.  The gradient table sweeps every row the same way
(``tests/ir/test_primitive_gradients.py``, ``tests/ir/test_zero_size_inputs.py``).
"""

import numpy as np
import pytest
import scipy.special

import tracer

RNG = np.random.default_rng(11)
Z = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))


def _traced(fn, *arrays):
    """``fn`` on tensors of ``arrays`` under a tape, and the gradient of its sum."""
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        out = fn(*tensors)
    return out, tape.gradient(out, tensors, output_gradients=np.ones(out.shape, out.dtype))


def _assert_as_numpy(fn, *arrays):
    with np.errstate(all="ignore"):
        expected = np.asarray(fn(*arrays))
        out, gradients = _traced(fn, *arrays)
    assert (out.shape, out.dtype) == (expected.shape, expected.dtype)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    for gradient, array in zip(gradients, arrays):
        assert (gradient.shape, gradient.dtype) == (array.shape, array.dtype)
    return gradients


@pytest.mark.parametrize("fn", [
    np.var, np.std, lambda z: np.var(z, ddof=1), lambda z: np.std(z, axis=0, ddof=2),
    lambda z: z.var(axis=-1, keepdims=True), lambda z: np.var(z.astype(np.complex64), axis=1),
], ids=["var", "std", "var-ddof", "std-axis-ddof", ".var-keepdims", "var-complex64"])
def test_variance_of_complex_values_is_numpys_real_one(fn):
    _assert_as_numpy(fn, Z)
    tracer.check_gradients(fn, Z, order=2)


@pytest.mark.parametrize("fn", [
    np.fabs, lambda z: np.quantile(z, 0.5), lambda z: np.percentile(z, 50, axis=0),
    scipy.special.i1,
], ids=["fabs", "quantile", "percentile", "i1"])
def test_complex_values_numpy_refuses_are_refused(fn):
    with pytest.raises(TypeError):
        fn(Z)
    with pytest.raises(TypeError):
        fn(tracer.constant(Z))


EMPTY = [
    ("einsum-leading", lambda a, b: np.einsum("...ij,...jk->...ik", a, b),
     [np.zeros((0, 2, 3)), np.ones((3, 4))]),
    ("einsum-sizes", lambda a, b: np.einsum("ij,jk->ik", a, b),
     [np.ones((2, 0)), np.ones((0, 3))]),
    ("norm-inf", lambda x: np.linalg.norm(x, np.inf), [np.zeros(0)]),
    ("norm-negative-order", lambda x: np.linalg.norm(x, -1.5), [np.zeros(0)]),
    ("norm-matrix-1", lambda x: np.linalg.norm(x, 1), [np.zeros((3, 0))]),
    ("norm-matrix-inf", lambda x: np.linalg.norm(x, np.inf, axis=(1, 0)), [np.zeros((3, 0))]),
    ("norm-matrix-2", lambda x: np.linalg.matrix_norm(x, ord=2), [np.zeros((2, 0, 3))]),
    ("median", np.median, [np.zeros(0)]),
    ("median-axis", lambda x: np.median(x, axis=1, keepdims=True), [np.zeros((2, 0))]),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the means of nothing, as numpy
@pytest.mark.parametrize("fn, arrays", [pytest.param(fn, arrays, id=name)
                                        for name, fn, arrays in EMPTY])
def test_zero_size_inputs_give_numpys_values(fn, arrays):
    gradients = _assert_as_numpy(fn, *arrays)
    assert not any(g.numpy().any() for g in gradients)


def test_irfft_of_nothing_is_the_transform_of_zeros():
    """numpy leaves this result uninitialised: its shape and dtype are compared."""
    expected = np.fft.irfft(np.zeros(0, complex), n=7)
    out, _ = _traced(lambda z: np.fft.irfft(z, n=7), np.zeros(0, complex))
    assert (out.shape, out.dtype) == (expected.shape, expected.dtype)
    np.testing.assert_array_equal(out.numpy(), 0.0)


@pytest.mark.parametrize("fn, error", [
    (lambda x: np.linalg.cond(x), np.linalg.LinAlgError),
    (lambda x: np.linalg.norm(x, -2), ValueError),
    (lambda x: np.einsum("ij,jk->ik", x, np.ones((3, 2))), ValueError),
], ids=["cond", "norm-matrix--2", "einsum-mismatch"])
def test_zero_size_inputs_numpy_refuses_are_refused(fn, error):
    x = np.zeros((0, 2))
    with pytest.raises(error):
        fn(x)
    with pytest.raises(error):
        fn(tracer.constant(x))
