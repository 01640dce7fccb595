"""``tracer.scipy.linalg.logm`` and ``sqrtm`` of stacks without entries, ``(0, n, n)`` and
``(k, 0, 0)``: values of scipy's type (scipy's own ``logm`` refuses them), and
derivatives of every kind, empty too, of the input's shape and dtype: reverse mode to
second order, forward mode, and generated code."""

import numpy as np
import pytest
from generated_gradients import assert_generated_gradients_match

import tracer
from tracer.forward_accumulator import ForwardAccumulator

scipy_linalg = pytest.importorskip("scipy.linalg")
from tracer.scipy import linalg  # noqa: E402

SHAPES = [(0, 3, 3), (2, 0, 0), (0, 0)]
DTYPES = [np.float32, np.float64, np.complex128]


def _scipys_type(name, dtype):
    """The dtype scipy gives ``name`` of a matrix with entries (logm of float32: float64)."""
    return getattr(scipy_linalg, name)(np.eye(2, dtype=dtype)).dtype


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", ["logm", "sqrtm"])
def test_empty_stacks_compute_and_differentiate(name, shape, dtype, monkeypatch):
    fn = getattr(linalg, name)
    a = np.zeros(shape, dtype)
    expected = np.dtype(_scipys_type(name, dtype))
    plain = fn(a)
    assert (plain.shape, plain.dtype) == (shape, expected)
    tensor = tracer.constant(a)
    with ForwardAccumulator(tensor, tracer.constant(np.ones(shape, dtype))) as acc:
        with tracer.GradientTape() as outer:
            outer.watch(tensor)
            with tracer.GradientTape() as inner:
                inner.watch(tensor)
                out = fn(tensor)
            first = inner.gradient(out, tensor, output_gradients=np.ones(shape, expected))
        second = outer.gradient(first, tensor, output_gradients=np.ones(shape, dtype))
    assert (out.shape, out.dtype) == (shape, expected)
    assert (acc.jvp(out).shape, acc.jvp(out).dtype) == (shape, expected)
    for gradient in (first, second):
        assert (gradient.shape, gradient.dtype) == (shape, np.dtype(dtype))
    assert_generated_gradients_match(fn, a, monkeypatch=monkeypatch)


@pytest.mark.parametrize("name", ["logm", "sqrtm"])
def test_empty_matrices_that_are_not_square_get_scipys_error(name):
    with pytest.raises((ValueError, np.linalg.LinAlgError), match="square"):
        getattr(linalg, name)(tracer.constant(np.zeros((2, 3, 0))))
