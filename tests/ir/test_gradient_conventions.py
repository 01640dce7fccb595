"""Gradients at non-differentiable points and other conventions, in closed form.

tapegen follows TensorFlow: ``abs'(0) = 0``, ties of ``maximum``/``minimum``
go wholly to the first argument, ``max``/``min`` reductions split ties
equally, ``clip`` bounds are inclusive, piecewise-constant and boolean
functions have no gradient (``None``) except ``sign``, whose gradient is
zeros as TensorFlow registers it, broadcast operands get gradients
summed back, and duplicate indices accumulate.  Each value is checked on the
eager tape and on the evaluated adjoint graph.
"""

import math

import numpy as np
import pytest

import ir
import tracer


def gradients(f, *values):
    """d sum(f) / d each value, eagerly; the adjoint graph must give the same."""
    tensors = [tracer.constant(np.asarray(v, dtype=float)) for v in values]
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        out = f(*tensors)
    eager = tape.gradient(out, tensors)
    graph = tape.graph
    inputs = [n.id for n in graph if n.kind == "input"]
    target = [n.id for n in graph if n.kind == "op"][-1]
    symbolic = ir.evaluate(ir.adjoint(graph, [target], inputs))
    for s, e in zip(symbolic, eager):
        assert (s is None) == (e is None)
        if e is not None:
            np.testing.assert_array_equal(s, e.numpy())
    return [None if e is None else e.numpy() for e in eager]


def assert_gradients(f, values, expected):
    for got, want in zip(gradients(f, *values), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_abs_has_zero_slope_at_zero():
    assert_gradients(np.abs, [[-2.0, 0.0, 3.0]], [[-1.0, 0.0, 1.0]])
    assert_gradients(abs, [0.0], [0.0])


@pytest.mark.parametrize("op", [np.maximum, np.minimum, np.fmax, np.fmin])
def test_extremum_ties_go_to_the_first_argument(op):
    assert_gradients(op, [[1.0, 2.0], [1.0, 2.0]], [[1.0, 1.0], [0.0, 0.0]])
    assert_gradients(lambda x: op(x, 0.0), [0.0], [1.0])
    assert_gradients(lambda x: op(0.0, x), [0.0], [0.0])
    assert_gradients(lambda x: op(x, x), [[-1.0, 2.0]], [[1.0, 1.0]])


def test_relu_at_zero():
    assert_gradients(lambda x: np.maximum(x, 0), [[-1.0, 0.0, 2.0]], [[0.0, 1.0, 1.0]])


@pytest.mark.parametrize("reduce", [np.max, np.amax, lambda x, **k: x.max(**k)],
                         ids=["max", "amax", ".max"])
def test_max_splits_ties_equally(reduce):
    assert_gradients(reduce, [[1.0, 3.0, 3.0]], [[0.0, 0.5, 0.5]])
    assert_gradients(lambda x: reduce(x, axis=1), [[[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]],
                     [[[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]]])
    assert_gradients(lambda x: reduce(x, axis=0, keepdims=True) * [1.0, 2.0],
                     [[[3.0, 1.0], [3.0, 1.0], [0.0, 1.0]]],
                     [[[0.5, 2 / 3], [0.5, 2 / 3], [0.0, 2 / 3]]])
    assert_gradients(reduce, [[[3.0, 1.0], [3.0, 3.0]]], [[[1 / 3, 0.0], [1 / 3, 1 / 3]]])


@pytest.mark.parametrize("reduce", [np.min, np.amin])
def test_min_splits_ties_equally(reduce):
    assert_gradients(reduce, [[2.0, 1.0, 1.0]], [[0.0, 0.5, 0.5]])


def test_clip_bounds_are_inclusive():
    x = [-1.0, 0.0, 0.5, 1.0, 2.0]
    assert_gradients(lambda x: np.clip(x, 0.0, 1.0), [x], [[0.0, 1.0, 1.0, 1.0, 0.0]])
    assert_gradients(np.clip, [x, 0.0, 1.0],
                     [[0.0, 1.0, 1.0, 1.0, 0.0], 1.0, 1.0])
    assert_gradients(lambda x, lo: np.clip(x, lo, 1.0), [x, [0.0] * 5],
                     [[0.0, 1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0]])


NO_GRADIENT = {
    "floor": np.floor, "ceil": np.ceil, "round": np.round, "around": np.around,
    "round-decimals": lambda x: np.round(x, 1), "rint": np.rint, "trunc": np.trunc,
    "//": lambda x: x // 0.3, "rfloordiv": lambda x: np.floor_divide(2.0, x),
    ">": lambda x: x > 0, ">=": lambda x: x >= 0, "<": lambda x: x < 0, "<=": lambda x: x <= 0,
    "==": lambda x: x == 0.5, "!=": lambda x: x != 0.5, "isfinite": np.isfinite,
    "argmax": np.argmax, "argmin": np.argmin, ".argmax": lambda x: x.argmax(),
    "argmax-axis": lambda x: np.argmax(x, axis=-1), "astype-int": lambda x: x.astype(np.int64),
}


@pytest.mark.parametrize("f", NO_GRADIENT.values(), ids=NO_GRADIENT.keys())
def test_piecewise_constant_functions_have_no_gradient(f):
    x = tracer.constant([[0.25, -1.5, 2.0], [1.0, 0.5, 3.0]])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    graph = tape.graph
    assert tape.gradient(y, x) is None
    inputs = [n.id for n in graph if n.kind == "input"]
    target = [n.id for n in graph if n.kind == "op"][-1]
    assert ir.adjoint(graph, [target], inputs).outputs == [None]


def _assert_zeros(value, shape, dtype):
    value = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    assert value.shape == shape and value.dtype == dtype
    assert not value.any()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sign_has_a_gradient_of_zeros_as_in_tensorflow(dtype):
    """Reverse, forward and batched modes, eager and on graphs: zeros of the input's
    shape and dtype, never ``None``, even where the cotangent is not finite."""
    values = np.array([[0.25, -1.5, 0.0], [1.0, -0.5, 3.0]], dtype)
    x = tracer.constant(values)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sign(x)
    _assert_zeros(tape.gradient(y, x, output_gradients=np.full(y.shape, np.inf, dtype)),
                  x.shape, dtype)
    _assert_zeros(tape.jacobian(y, x), y.shape + x.shape, dtype)
    with tracer.ForwardAccumulator(x, np.ones_like(values)) as acc:
        z = np.sign(x)
    _assert_zeros(acc.jvp(z), z.shape, dtype)

    graph = tape.graph
    inputs = [n.id for n in graph if n.kind == "input"]
    target = [n.id for n in graph if n.kind == "op"][-1]
    graph.outputs = [target]
    (gradient,) = ir.evaluate(ir.adjoint(graph, [target], inputs))
    _assert_zeros(gradient, x.shape, dtype)
    (jacobian,) = ir.evaluate(ir.adjoint(graph, [target], inputs, jacobian=True))
    _assert_zeros(jacobian, y.shape + x.shape, dtype)
    tangents = ir.autodiff.forward.tangents(graph, inputs)
    direction = [n.id for n in tangents if n.kind == "input" and "tangent_of" in n.meta]
    (tangent,) = ir.evaluate(tangents, dict(zip(direction, [np.ones_like(values)])))
    _assert_zeros(tangent, y.shape, dtype)


def test_complex_sign_is_differentiated_as_z_over_its_modulus():
    """numpy's complex sign is z / |z|, not a step: its TensorFlow cotangent for an
    upstream g is (g - conj(g) s**2) / (2 |z|), and 0 at z = 0 (as abs has)."""
    z = np.array([1 + 2j, -3 + 0.5j, 0j])
    g = np.array([1 - 1j, 2 + 1j, 1j])
    x = tracer.constant(z)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sign(x)
    s, r = np.sign(z), np.abs(z)
    expected = np.where(r == 0, 0, (g - np.conj(g) * s * s) / (2 * np.where(r == 0, 1, r)))
    np.testing.assert_allclose(tape.gradient(y, x, output_gradients=g).numpy(), expected)


def test_sign_times_its_input_differentiates_as_abs_to_second_order():
    x = np.array([0.7, -1.5, 2.5, -0.25])
    tracer.check_gradients(lambda x: np.sign(x) * x * x, x, order=2)
    hessian = tracer.hessian(lambda x: np.sum(np.sign(x) * x * x))(tracer.constant(x))
    np.testing.assert_allclose(np.asarray(hessian), np.diag(2 * np.sign(x)))


def test_argmax_returns_a_tensor_of_positions():
    x = tracer.constant([[0.25, -1.5, 2.0], [1.0, 3.0, 0.5]])
    np.testing.assert_array_equal(np.argmax(x, axis=-1).numpy(), [2, 1])
    np.testing.assert_array_equal(np.argmin(x, axis=0, keepdims=True).numpy(), [[0, 0, 1]])
    assert int(x.argmax()) == 4
    assert_gradients(lambda x: x[np.argmax(x)], [[1.0, 3.0, 2.0]], [[0.0, 1.0, 0.0]])


def test_broadcast_operands_get_gradients_summed_back():
    ones = np.ones((2, 3))
    assert_gradients(np.add, [ones, [1.0, 2.0, 3.0]], [ones, [2.0, 2.0, 2.0]])
    assert_gradients(np.multiply, [[[1.0], [2.0]], [[10.0, 20.0, 30.0]]],
                     [[[60.0], [60.0]], [[3.0, 3.0, 3.0]]])
    assert_gradients(lambda x, s: x - s, [ones, 2.0], [ones, -6.0])
    assert_gradients(lambda x, y: np.where([True, False], x, y), [1.0, [[1.0], [2.0]]],
                     [2.0, [[1.0], [1.0]]])


def test_duplicate_indices_accumulate():
    x = [1.0, 2.0, 3.0]
    assert_gradients(lambda x: x[[0, 2, 2]], [x], [[1.0, 0.0, 2.0]])
    assert_gradients(lambda x: np.take(x, [0, 2, 2]), [x], [[1.0, 0.0, 2.0]])
    assert_gradients(lambda x: x[np.array([[2, 2], [2, 0]])], [x], [[1.0, 0.0, 3.0]])
    assert_gradients(lambda x: x[[1, 1], 1:], [[[1.0, 2.0], [3.0, 4.0]]],
                     [[[0.0, 0.0], [0.0, 2.0]]])


def test_masks_select_like_their_positions():
    mask = np.array([[True, False], [True, True]])
    assert_gradients(lambda x: x[mask] * [1.0, 2.0, 3.0], [[[5.0, 6.0], [7.0, 8.0]]],
                     [[[1.0, 0.0], [2.0, 3.0]]])


def test_sqrt_at_zero_is_infinite():
    with np.errstate(divide="ignore"):
        assert_gradients(np.sqrt, [[0.0, 4.0]], [[np.inf, 0.25]])


def test_square_at_zero():
    assert_gradients(lambda x: x ** 2, [[0.0, -1.5]], [[0.0, -3.0]])
    assert_gradients(np.square, [[0.0]], [[0.0]])
    tracer.check_gradients(lambda x: x ** 2, np.zeros(3), order=3)
    tracer.check_gradients(lambda x: x ** 3, np.zeros(3), order=3)


def test_prod_at_zeros():
    assert_gradients(np.prod, [[0.0, 2.0, 3.0]], [[6.0, 0.0, 0.0]])
    assert_gradients(np.prod, [[0.0, 2.0, 0.0]], [[0.0, 0.0, 0.0]])
    assert_gradients(lambda x: np.prod(x, axis=0), [[[0.0, 2.0], [5.0, 0.0]]],
                     [[[5.0, 0.0], [0.0, 2.0]]])
    tracer.check_gradients(np.prod, np.array([0.0, 2.0, 0.0, 3.0]), order=3)


@pytest.mark.parametrize("shape, axis", [((0,), None), ((2, 0), 1), ((0, 3), 0), ((2, 0), None)])
def test_prod_and_cumprod_over_nothing(shape, axis):
    """The empty product is 1, which no element changes: an empty gradient, also when
    the adjoint graph computes it."""
    for fn in (lambda x: np.prod(x, axis=axis), lambda x: np.cumprod(x, axis=axis)):
        x = tracer.constant(np.ones(shape))
        with tracer.GradientTape(persistent=True) as tape:
            tape.watch(x)
            out = fn(x)
        assert tape.gradient(out, x).shape == shape
        graph = tape.graph
        target = [n.id for n in graph if n.kind == "op"][-1]
        (symbolic,) = ir.evaluate(ir.adjoint(graph, [target], [n.id for n in graph
                                                                if n.kind == "input"]))
        assert np.shape(symbolic) == shape


def test_integer_sources_get_no_gradient():
    x = tracer.constant([1, 2, 3])
    y = tracer.constant([0.5, 1.0, 1.5])
    with tracer.GradientTape() as tape:
        tape.watch(y)
        out = np.sum(x * y)
    assert tape.gradient(out, [x, y])[0] is None


def _sinc_derivative(x, order, terms=40):
    """The ``order``-th derivative of sinc from its Taylor series at 0 (fine for |x| < 1)."""
    total = np.zeros_like(x)
    for n in range(terms):
        power = 2 * n
        if power < order:
            continue
        coefficient = (-1) ** n * np.pi ** power / math.factorial(power + 1)
        total += coefficient * math.perm(power, order) * x ** (power - order)
    return total


def test_sinc_derivatives_at_and_near_zero():
    # At 0 the closed form is 0/0; the series gives sinc''(0) = -pi**2/3, sinc''''(0) = pi**4/5.
    points = np.array([0.0, 1e-9, 1e-3, 0.05, 0.0954, 0.0956, 0.2, 0.7])
    derivative = np.sinc
    for order in range(1, 5):
        derivative = tracer.grad(lambda x, lower=derivative: np.sum(lower(x)))
        values = derivative(points).numpy()
        np.testing.assert_allclose(values, _sinc_derivative(points, order),
                                   rtol=1e-11, atol=1e-12, err_msg=f"order {order}")
        at_zero = {1: 0.0, 2: -np.pi ** 2 / 3, 3: 0.0, 4: np.pi ** 4 / 5}[order]
        assert values[0] == pytest.approx(at_zero, rel=1e-15)


def test_generated_sinc_hessian_at_zero():
    import codegen

    x = tracer.constant(np.array([0.0, 0.05, 0.7]), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.sinc(x))
    hessian = codegen.load(codegen.hessian_source(tape, y, x)).hessian(x.numpy())
    np.testing.assert_allclose(np.diag(hessian), _sinc_derivative(x.numpy(), 2), rtol=1e-13)
