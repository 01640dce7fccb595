"""``tracer.scipy.signal.convolve`` computes scipy's values (shape, dtype, errors) on
plain arrays and tensors, autograd's extended form in autograd's axis order, and
stays symbolic in generated code.  Its derivatives are checked with the gradient table."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import codegen
import tracer

scipy_signal = pytest.importorskip("scipy.signal")

from tracer.scipy.signal import convolve  # noqa: E402

MODES = ("full", "valid", "same")


def _values(x):
    return x.numpy() if isinstance(x, tracer.Tensor) else np.asarray(x)


def _assert_same_as_scipy(in1, in2, mode):
    """Equal to scipy's convolution on arrays and on tensors, or the same kind of error."""
    try:
        expected = scipy_signal.convolve(in1, in2, mode)
    except ValueError:
        for args in ((in1, in2), (tracer.constant(in1), tracer.constant(in2))):
            with pytest.raises(ValueError):
                convolve(*args, mode)
        return
    tolerance = (1e-5 if np.result_type(expected) == np.float32 else 1e-10) * max(
        1.0, np.max(np.abs(expected), initial=0.0))
    for args in ((in1, in2), (tracer.constant(in1), tracer.constant(in2))):
        got = convolve(*args, mode)
        assert (got.shape, got.dtype) == (np.shape(expected), np.result_type(expected))
        np.testing.assert_allclose(_values(got), expected, rtol=0, atol=tolerance)


@st.composite
def operands(draw):
    ndim = draw(st.integers(0, 3))
    shape = st.tuples(*[st.integers(1, 5)] * ndim)
    dtype = draw(st.sampled_from([np.float64, np.complex128, np.int64, np.float32]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))

    def array(shape):
        values = rng.standard_normal(shape) * 3
        if dtype is np.complex128:
            values = values + 1j * rng.standard_normal(shape)
        return values.astype(dtype)
    return array(draw(shape)), array(draw(shape)), draw(st.sampled_from(MODES))


@settings(max_examples=150, deadline=None)
@given(operands())
def test_equals_scipy_on_random_shapes_and_modes(case):
    _assert_same_as_scipy(*case)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shapes", [((200,), (31,)), ((9,), (40,)), ((20, 17), (5, 6)),
                                    ((6, 7, 5), (3, 2, 4))])
def test_equals_scipy_where_scipy_uses_the_fft(shapes, mode):
    rng = np.random.default_rng(1)
    _assert_same_as_scipy(*(rng.standard_normal(s) for s in shapes), mode)


@pytest.mark.parametrize("method", ["auto", "direct", "fft"])
def test_takes_lists_and_every_method_as_scipy(method):
    expected = scipy_signal.convolve([1, 2, 3], [0, 1, 0.5], "same", method=method)
    np.testing.assert_allclose(convolve([1, 2, 3], [0, 1, 0.5], "same", method), expected)


def test_scalars_multiply_as_scipy():
    assert convolve(np.array(2.0), np.array(3.0)) == scipy_signal.convolve(2.0, 3.0) == 6.0


def _reference(a, b, axes, dot_axes, mode):
    """autograd's convolution by its definition, one product at a time: ``a``'s kept
    axes, then ``b``'s, then the convolved ones, cut to ``mode``'s window."""
    (ca, da), (cb, db) = ([[i % x.ndim for i in pair[k]] for pair in (axes, dot_axes)]
                          for k, x in enumerate((a, b)))
    kept_a = [i for i in range(a.ndim) if i not in ca + da]
    kept_b = [j for j in range(b.ndim) if j not in cb + db]
    full = [a.shape[i] + b.shape[j] - 1 for i, j in zip(ca, cb)]
    out = np.zeros([a.shape[i] for i in kept_a] + [b.shape[j] for j in kept_b] + full)
    for ia in itertools.product(*map(range, a.shape)):
        for ib in itertools.product(*map(range, b.shape)):
            if all(ia[i] == ib[j] for i, j in zip(da, db)):
                at = ([ia[i] for i in kept_a] + [ib[j] for j in kept_b]
                      + [ia[i] + ib[j] for i, j in zip(ca, cb)])
                out[tuple(at)] += a[ia] * b[ib]
    window = [slice(None)] * (len(kept_a) + len(kept_b))
    for i, j in zip(ca, cb):
        n, m = a.shape[i], b.shape[j]
        start = {"full": 0, "valid": min(n, m) - 1, "same": (m - 1) // 2}[mode]
        stop = {"full": n + m - 1, "valid": max(n, m), "same": (m - 1) // 2 + n}[mode]
        window.append(slice(start, stop))
    return out[tuple(window)]


AUTOGRAD_FORMS = [(([2], [2]), ([1], [0])), (([2, 0], [1, 2]), ([], [])),
                  (([1], [0]), ([], [])), (([], []), ([1], [0])), (([0], [-1]), ([1], [0])),
                  (([-1], [1]), ([1], [0]))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axes, dot_axes", AUTOGRAD_FORMS)
def test_autograd_form_keeps_autograd_axis_order(axes, dot_axes, mode):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 5, 2))
    expected = _reference(a, b, axes, dot_axes, mode)
    for args in ((a, b), (tracer.constant(a), tracer.constant(b))):
        got = convolve(*args, mode, axes=axes, dot_axes=dot_axes)
        assert got.shape == expected.shape
        np.testing.assert_allclose(_values(got), expected, rtol=1e-12, atol=1e-12)


def test_dot_axes_alone_convolve_the_other_axes():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((2, 3))
    expected = _reference(a, b, ([1], [0]), ([0], [1]), "full")
    np.testing.assert_allclose(convolve(a, b, dot_axes=([0], [1])), expected, rtol=1e-12)


def test_autograd_form_differentiates_to_second_order():
    def f(a, b):
        return convolve(a, b, "same", axes=([0], [1]), dot_axes=([1], [0]))
    rng = np.random.default_rng(4)
    tracer.check_gradients(f, rng.standard_normal((4, 2, 3)), rng.standard_normal((2, 3)),
                           order=2)


@pytest.mark.parametrize("mode", MODES)
def test_generated_code_holds_at_other_lengths(mode):
    """A symbolic signal length stays symbolic: the module computes at other lengths."""
    rng = np.random.default_rng(5)
    kernel = rng.standard_normal((3, 2))
    x = tracer.constant(rng.standard_normal((6, 3)), name="x", dims=("n", None))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = np.sum(np.sin(convolve(x, kernel, mode)))
    module = codegen.load(codegen.gradient_source(tape, out, [x]))
    for n in (3, 9):
        signal = tracer.constant(rng.standard_normal((n, 3)))
        with tracer.GradientTape() as tape:
            tape.watch(signal)
            eager = tape.gradient(np.sum(np.sin(convolve(signal, kernel, mode))), signal)
        np.testing.assert_allclose(module.gradient(signal.numpy())[0], eager.numpy(), rtol=1e-12)


ONE, TWO = np.ones(3), np.ones((2, 3))


@pytest.mark.parametrize("call, error, match", [
    (lambda: convolve(ONE, ONE, "wide"), ValueError, "mode must be one of"),
    (lambda: convolve(ONE, ONE, ([0], [0])), ValueError, "pass axes= and dot_axes= by keyword"),
    (lambda: convolve(ONE, ONE, method="slow"), ValueError, "method must be one of"),
    (lambda: convolve(ONE, TWO), ValueError, "same dimensionality"),
    (lambda: convolve(np.ones((3, 2)), np.ones((2, 3)), "valid"), ValueError,
     "at least as large as the other in every dimension"),
    (lambda: convolve(TWO, TWO, axes=([0, 1], [0])), ValueError, "same number of axes"),
    (lambda: convolve(TWO, TWO, axes=[0, 1]), ValueError, "must be a pair"),
    (lambda: convolve(TWO, TWO, axes=([2], [0])), np.exceptions.AxisError, "out of bounds"),
    (lambda: convolve(TWO, TWO, axes=([0], [0]), dot_axes=([0], [1])), ValueError,
     "named twice"),
    (lambda: convolve(TWO, TWO, axes=([1], [1]), dot_axes=([0], [1])), ValueError,
     "named twice"),
    (lambda: convolve(TWO, np.ones((3, 3)), axes=([1], [1]), dot_axes=([0], [0])),
     ValueError, "must have the same length"),
    (lambda: convolve(np.ones(0), ONE), ValueError, "cannot be empty"),
])
def test_bad_arguments_say_what_to_change(call, error, match):
    with pytest.raises(error, match=match):
        call()
