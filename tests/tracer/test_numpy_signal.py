"""numpy's convolve, correlate, trapezoid and interp on tensors, and ``tracer.scipy``'s
correlate, convolve2d, correlate2d, fftconvolve and integrate.trapezoid: numpy's and
scipy's values, shapes and dtypes over many shapes and modes, real and complex, their
errors, and the derivatives the gradient table cannot show (at knots, beyond the ends)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tracer

MODES = ("full", "valid", "same")


def _signal(rng, n, kind):
    values = rng.standard_normal(n)
    if kind == "complex":
        return values + 1j * rng.standard_normal(n)
    return values.astype(kind)


def _assert_matches(got, expected, tolerance=1e-10):
    expected = np.asarray(expected)
    assert (got.shape, got.dtype) == (expected.shape, expected.dtype)
    scale = max(1.0, np.max(np.abs(expected), initial=0.0))
    np.testing.assert_allclose(got.numpy(), expected, rtol=0, atol=tolerance * scale)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 7), m=st.integers(1, 7), mode=st.sampled_from(MODES),
       kind=st.sampled_from(["float64", "complex", "float32"]),
       function=st.sampled_from([np.convolve, np.correlate]), seed=st.integers(0, 99))
def test_convolve_and_correlate_match_numpy(n, m, mode, kind, function, seed):
    rng = np.random.default_rng(seed)
    a, v = _signal(rng, n, kind), _signal(rng, m, kind)
    tolerance = 1e-5 if kind == "float32" else 1e-12
    _assert_matches(function(tracer.constant(a), v, mode), function(a, v, mode), tolerance)
    _assert_matches(function(a, tracer.constant(v), mode), function(a, v, mode), tolerance)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_convolve_and_correlate_take_numpys_mode_numbers(mode):
    a, v = np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0])
    for function in (np.convolve, np.correlate):
        _assert_matches(function(tracer.constant(a), v, mode), function(a, v, mode))


def test_convolve_takes_scalars_and_integers_as_numpy():
    _assert_matches(np.convolve(tracer.constant(2.0), [1.0, 3.0]), np.convolve(2.0, [1.0, 3.0]))
    ints = np.array([1, 2, 3])
    _assert_matches(np.convolve(tracer.constant(ints), [4, 5], "same"),
                    np.convolve(ints, [4, 5], "same"))


@pytest.mark.parametrize("call, match", [
    (lambda t: np.convolve(t, [1.0], "wide"), "mode must be one of"),
    (lambda t: np.correlate(t, [1.0], 3), "mode must be one of"),
    (lambda t: np.convolve(t, np.ones((2, 2))), "must be a 1-D sequence"),
    (lambda t: np.correlate(t, 1.0), "must be a 1-D sequence"),
    (lambda t: np.convolve(t, []), "cannot be empty"),
    (lambda t: np.correlate(t[:0], [1.0]), "cannot be empty"),
])
def test_convolve_and_correlate_refuse_what_numpy_refuses(call, match):
    t = tracer.constant(np.ones(3))
    with pytest.raises(ValueError, match=match):
        call(t)
    with pytest.raises(ValueError):
        call(np.ones(3))


@pytest.mark.parametrize("kwargs", [{}, {"dx": 0.25}, {"axis": 0}, {"x": [0.0, 0.5, 2.0, 2.5]},
                                    {"x": np.arange(3.0), "axis": -2}, {"x": "2d"}])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int64])
def test_trapezoid_matches_numpy(kwargs, dtype):
    rng = np.random.default_rng(0)
    y = (rng.standard_normal((3, 4)) * 4).astype(dtype)
    if isinstance(kwargs.get("x"), str):
        kwargs = {"x": np.cumsum(rng.uniform(0.1, 1.0, (3, 4)), axis=-1)}
    _assert_matches(np.trapezoid(tracer.constant(y), **kwargs), np.trapezoid(y, **kwargs))


def test_trapezoid_differentiates_by_the_sample_points_and_spacing():
    y = tracer.Variable(np.array([1.0, 4.0, 2.0]))
    x = tracer.Variable(np.array([0.0, 1.0, 3.0]))
    dx = tracer.Variable(0.5)
    with tracer.GradientTape(persistent=True) as tape:
        by_x = np.trapezoid(y, x)
        by_dx = np.trapezoid(y, dx=dx)
    np.testing.assert_allclose(tape.gradient(by_x, x).numpy(), [-2.5, -0.5, 3.0])
    np.testing.assert_allclose(tape.gradient(by_x, y).numpy(), [0.5, 1.5, 1.0])
    np.testing.assert_allclose(tape.gradient(by_dx, dx).numpy(), 5.5)


def test_scipy_integrate_trapezoid_is_numpys_on_tensors():
    integrate = pytest.importorskip("tracer.scipy.integrate")
    y = tracer.Variable(np.array([1.0, 2.0, 4.0]))
    with tracer.GradientTape() as tape:
        area = integrate.trapezoid(y, dx=2.0)
    assert area.numpy() == pytest.approx(9.0)
    np.testing.assert_allclose(tape.gradient(area, y).numpy(), [1.0, 2.0, 1.0])


KNOTS = np.array([-1.0, -0.25, 0.5, 2.0])
QUERIES = np.array([-2.0, -1.0, -0.6, -0.25, 0.1, 0.5, 1.9, 2.0, 3.0, np.nan, -np.inf, np.inf])


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # at inf, as numpy's remainder
@pytest.mark.parametrize("kwargs", [{}, {"left": -3.0, "right": 4.5}, {"period": 1.5},
                                    {"period": -2.0, "left": 9.0}, {"left": np.array(2.0)}])
@pytest.mark.parametrize("complex_values", [False, True])
@pytest.mark.parametrize("shape", [(12,), (3, 4), ()])
def test_interp_matches_numpy_exactly(kwargs, complex_values, shape):
    rng = np.random.default_rng(1)
    fp = rng.standard_normal(4) + (1j * rng.standard_normal(4) if complex_values else 0)
    x = QUERIES.reshape(shape) if shape else QUERIES[4]
    expected = np.interp(x, KNOTS, fp, **kwargs)
    for args in ((tracer.constant(x), KNOTS, fp), (x, tracer.constant(KNOTS), fp),
                 (x, KNOTS, tracer.constant(fp))):
        got = np.interp(*args, **kwargs)
        assert (got.shape, got.dtype) == (np.shape(expected), np.result_type(expected))
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-15, atol=0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_interp_matches_numpy_on_infinite_values_and_float32():
    fp = np.array([0.0, np.inf, 1.0, 1.0, -np.inf])
    x = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0])
    np.testing.assert_array_equal(np.interp(tracer.constant(x), np.arange(5.0), fp).numpy(),
                                  np.interp(x, np.arange(5.0), fp))
    small = np.float32([0.25, 3.0])
    _assert_matches(np.interp(tracer.constant(small), [1.0], np.float32([2.0])),
                    np.interp(small, [1.0], np.float32([2.0])))


def test_interp_derivatives_take_the_segment_on_the_right_of_a_knot():
    x = tracer.Variable(np.array([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0]))
    xp = tracer.Variable(np.array([-1.0, 0.5, 2.0]))
    fp = tracer.Variable(np.array([1.0, 4.0, -2.0]))
    with tracer.GradientTape() as tape:
        y = np.interp(x, xp, fp)
    dx, dxp, dfp = tape.gradient(y, [x, xp, fp])
    np.testing.assert_allclose(dx.numpy(), [0.0, 2.0, 2.0, -4.0, -4.0, 0.0, 0.0])
    # Each value's weights on fp, summed: [1, 0, 0] twice, [1/3, 2/3, 0], [0, 1, 0],
    # [0, 2/3, 1/3], and [0, 0, 1] at the last knot and beyond it.
    np.testing.assert_allclose(dfp.numpy(), [7 / 3, 7 / 3, 7 / 3])
    assert dxp.shape == (3,) and np.isfinite(dxp.numpy()).all()


def test_interp_second_derivative_by_fp_is_zero_and_by_x_exists():
    x = tracer.Variable(np.array([0.2, 0.7]))
    fp = tracer.Variable(np.array([0.0, 1.0, 5.0]))
    with tracer.GradientTape() as outer:
        with tracer.GradientTape() as inner:
            y = np.sum(np.interp(x, [0.0, 0.5, 1.0], fp) ** 2)
        dx = inner.gradient(y, x)
    np.testing.assert_allclose(dx.numpy(), [2 * 0.4 * 2.0, 2 * 2.6 * 8.0])
    np.testing.assert_allclose(outer.gradient(dx, x).numpy(), [8.0, 128.0])


@pytest.mark.parametrize("call, error, match", [
    (lambda t: np.interp(t + 1j, [0.0, 1.0], [1.0, 2.0]), TypeError, "x is complex"),
    (lambda t: np.interp(t, [0.0, 1j], [1.0, 2.0]), TypeError, "xp is complex"),
    (lambda t: np.interp(t, [], []), ValueError, "empty"),
    (lambda t: np.interp(t, [0.0, 1.0], [1.0]), ValueError, "not of the same length"),
    (lambda t: np.interp(t, [[0.0, 1.0]], [[1.0, 2.0]]), ValueError, "1-D"),
    (lambda t: np.interp(t, [0.0, 1.0], [1.0, 2.0], period=0), ValueError, "non-zero"),
])
def test_interp_refuses_what_numpy_refuses(call, error, match):
    with pytest.raises(error, match=match):
        call(tracer.constant(np.array([0.5, 2.0])))
    with pytest.raises(error):
        call(np.array([0.5, 2.0]))


@pytest.mark.parametrize("left", [[1.0, 2.0], np.array([2.0])])
def test_interp_refuses_a_left_value_that_is_not_one_scalar(left):
    with pytest.raises(TypeError, match="single value"):
        np.interp(tracer.constant(0.5), [0.0, 1.0], [1.0, 2.0], left=left)
    with pytest.raises(TypeError):
        np.interp(0.5, [0.0, 1.0], [1.0, 2.0], left=left)


SHAPE_PAIRS = [((4,), (3,)), ((3,), (5,)), ((4,), (4,)), ((2, 5), (3, 2)), ((4, 3), (2, 3)),
               ((2, 3), (4, 5)), ((3, 4), (4, 4)), ((5, 6), (2, 3)), ((1, 1), (2, 2))]


def _scipy_cases():
    for shapes in SHAPE_PAIRS:
        for mode in MODES:
            yield "correlate", shapes, mode, {}
            yield "fftconvolve", shapes, mode, {}
            if len(shapes[0]) == 2:
                for fill in ({}, {"fillvalue": 1.5}, {"fillvalue": 0.5 - 1j}):
                    yield "convolve2d", shapes, mode, fill
                    yield "correlate2d", shapes, mode, fill
    for shapes, axes in [(((2, 5), (2, 3)), [1]), (((2, 5), (1, 3)), [1]),
                         (((3, 5, 4), (3, 2, 1)), [1]), (((3, 5, 4), (1, 2, 4)), (-2,))]:
        for mode in MODES:
            yield "fftconvolve", shapes, mode, {"axes": axes}


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # scipy's, then refused
@pytest.mark.parametrize("name, shapes, mode, kwargs", list(_scipy_cases()))
@pytest.mark.parametrize("kind", ["float64", "complex"])
def test_scipy_signal_functions_match_scipy(name, shapes, mode, kwargs, kind):
    scipy_signal = pytest.importorskip("scipy.signal")
    from tracer.scipy import signal

    rng = np.random.default_rng(len(name) + len(mode))
    in1, in2 = (_signal(rng, shape, kind) for shape in shapes)
    try:
        expected = getattr(scipy_signal, name)(in1, in2, mode, **kwargs)
    except ValueError:
        with pytest.raises(ValueError):
            getattr(signal, name)(tracer.constant(in1), in2, mode, **kwargs)
        return
    for args in ((tracer.constant(in1), in2), (in1, tracer.constant(in2))):
        _assert_matches(getattr(signal, name)(*args, mode, **kwargs), expected)


def test_fftconvolve_of_an_empty_input_is_scipys_empty_array():
    from tracer.scipy import signal

    got = signal.fftconvolve(tracer.constant(np.zeros((0, 3))), np.ones((2, 3)))
    assert (got.shape, got.dtype) == ((0,), np.float64)


@pytest.mark.parametrize("call, error, match", [
    (lambda s, t: s.convolve2d(t, t, boundary="wrap"), NotImplementedError, "boundary='fill'"),
    (lambda s, t: s.correlate2d(t, t, boundary="reflect"), ValueError, "boundary must be one"),
    (lambda s, t: s.convolve2d(t, t, fillvalue=[1.0, 2.0]), ValueError, "fillvalue must be"),
    (lambda s, t: s.correlate2d(t[0], t), ValueError, "must both be 2-D"),
    (lambda s, t: s.correlate(t, t, "wide"), ValueError, "mode must be one of"),
    (lambda s, t: s.correlate(t, t, method="slow"), ValueError, "method must be one of"),
    (lambda s, t: s.fftconvolve(t, t[0]), ValueError, "same dimensionality"),
    (lambda s, t: s.fftconvolve(t, t[:, :2], axes=0), ValueError, "incompatible shapes"),
])
def test_scipy_signal_functions_refuse_clearly(call, error, match):
    pytest.importorskip("scipy.signal")
    from tracer.scipy import signal

    with pytest.raises(error, match=match):
        call(signal, tracer.constant(np.ones((2, 3))))
