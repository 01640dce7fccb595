"""``unconnected_gradients`` in generated modules, as in ``tape.gradient`` and
``tape.jacobian``: ``None`` for a source the target does not reach (the default), or
with ``UnconnectedGradients.ZERO`` zeros of the shape and dtype the tape gives, for
every generator, with symbolic sizes written from the parameters.
"""

import math

import numpy as np
import pytest

import codegen
import tracer
from tracer import GradientTape, UnconnectedGradients

pytestmark = pytest.mark.filterwarnings("error::tracer.GradientTapeWarning")

ZERO_CHOICES = [UnconnectedGradients.ZERO, "zero"]
SHAPES = [(3,), (2, 3)]


def _record(shape):
    """``y = sum(x ** 2)`` with ``z`` recorded apart, ``w`` never used, and the constant
    target ``matrix_power(c, 0)``."""
    size = int(np.prod(shape))
    x = tracer.constant(np.linspace(-0.5, 0.7, size).reshape(shape), name="x")
    z = tracer.Variable(np.full((2, 2), 0.5), name="z")
    w = tracer.constant(np.ones((4,)), name="w")
    c = tracer.constant(np.eye(2) * 2.0, name="c")
    with GradientTape(persistent=True) as tape:
        tape.watch([x, w, c])
        y = np.sum(x ** 2)
        u = z * 3.0
        k = np.linalg.matrix_power(c, 0)
    return tape, y, u, k, x, z, w, c


def _assert_same(generated, eager):
    assert len(generated) == len(eager)
    for got, want in zip(generated, eager):
        if want is None:
            assert got is None
            continue
        want = want.numpy()
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize("choice", ZERO_CHOICES + [UnconnectedGradients.NONE, "none"])
@pytest.mark.parametrize("shape", SHAPES)
def test_gradient_source_gives_what_tape_gradient_gives(shape, choice):
    tape, y, u, k, x, z, w, c = _record(shape)
    eager = tape.gradient(y, [x, z, w], unconnected_gradients=choice)
    source = codegen.gradient_source(tape, y, [x, z, w], unconnected_gradients=choice)
    _assert_same(codegen.load(source).gradient(x.numpy() * 1.5), [
        None if g is None else tracer.constant(g.numpy() * 1.5 if g is eager[0] else g.numpy())
        for g in eager])


@pytest.mark.parametrize("shape", SHAPES)
def test_jacobian_source_gives_target_shape_and_source_shape(shape):
    tape, y, u, k, x, z, w, c = _record(shape)
    for target in (u, k):
        eager = tape.jacobian(target, [x, z, w, c], unconnected_gradients="zero")
        source = codegen.jacobian_source(tape, target, [x, z, w, c], unconnected_gradients="zero")
        module = codegen.load(source)
        _assert_same(module.jacobian(*(z.numpy() for _ in module.INPUTS)), eager)


@pytest.mark.parametrize("choice", ZERO_CHOICES)
def test_a_constant_target_gets_zeros(choice):
    tape, y, u, k, x, z, w, c = _record((3,))
    eager = tape.gradient(k, c, unconnected_gradients=choice)
    module = codegen.load(codegen.gradient_source(tape, k, c, unconnected_gradients=choice,
                                                  with_value=True))
    value, gradient = module.gradient()
    np.testing.assert_array_equal(value, np.eye(2))
    _assert_same([gradient], [eager])
    gradient[0, 0] = 1.0  # writable, as the tape's


@pytest.mark.parametrize("shape", SHAPES)
def test_second_order_zeros(shape):
    """A Hessian of zeros, ``source.shape * 2``, and a product of zeros, for a source the
    target does not reach: what nested tapes give with ZERO."""
    tape, y, u, k, x, z, w, c = _record(shape)
    with GradientTape() as outer:
        with GradientTape() as inner:
            target = np.sum(x ** 2) + np.sum(z * 0.0)
        gradient = inner.gradient(target, w, unconnected_gradients="zero")
    expected = outer.jacobian(gradient, w, unconnected_gradients="zero").numpy()
    hessian = codegen.load(codegen.hessian_source(tape, y, w, unconnected_gradients="zero"))
    np.testing.assert_array_equal(hessian.hessian(x.numpy()), expected)
    assert hessian.hessian(x.numpy()).shape == (4, 4)
    hvp = codegen.load(codegen.hvp_source(tape, y, w, unconnected_gradients="zero"))
    assert [name for name, _, _ in hvp.INPUTS] == ["x", "v"]
    np.testing.assert_array_equal(hvp.hvp(x.numpy(), np.ones(4)), np.zeros(4))
    connected = codegen.load(codegen.hessian_source(tape, y, x, unconnected_gradients="zero"))
    size = int(np.prod(shape))
    np.testing.assert_allclose(connected.hessian(x.numpy()).reshape(size, size),
                               2 * np.eye(size), rtol=1e-14)


def test_second_order_none_by_default():
    tape, y, u, k, x, z, w, c = _record((3,))
    assert codegen.load(codegen.hessian_source(tape, y, w)).hessian(x.numpy()) is None
    assert codegen.load(codegen.hvp_source(tape, y, w)).hvp(x.numpy(), np.ones(4)) is None


def test_an_integer_source_gets_integer_zeros():
    x = tracer.constant(np.array([0.5, 1.5]), name="x")
    n = tracer.constant(np.array([1, 2]), name="n")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sum(x * n)
    eager = tape.gradient(y, [x, n], unconnected_gradients="zero")
    module = codegen.load(codegen.gradient_source(tape, y, [x, n],
                                                  unconnected_gradients="zero"))
    _assert_same(module.gradient(x.numpy(), n.numpy()), eager)


def test_an_unknown_choice_is_refused_as_the_tape_refuses_it():
    tape, y, u, k, x, z, w, c = _record((3,))
    for generator in (codegen.gradient_source, codegen.jacobian_source,
                      codegen.hessian_source, codegen.hvp_source):
        with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'zeros'"):
            generator(tape, y, x, unconnected_gradients="zeros")
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="zeros")


def _symbolic(batch=5):
    rng = np.random.default_rng(1)
    W = tracer.Variable(rng.normal(size=(4, 3)), name="W")
    V = tracer.Variable(rng.normal(size=(2, 3)), name="V")
    x = tracer.constant(rng.normal(size=(batch, 4)), name="x", dims=("batch", None))
    q = tracer.constant(rng.normal(size=(batch + 1, 4)), name="q", dims=("other", None))
    with GradientTape(persistent=True) as tape:
        tape.watch([x, q])
        h = x @ W
        loss = np.mean(np.tanh(h))
    return tape, loss, h, W, V, x, q


@pytest.mark.parametrize("batch", [2, 7])
def test_symbolic_sizes_written_from_the_parameters(batch):
    tape, loss, h, W, V, x, q = _symbolic()
    gradient = codegen.load(codegen.gradient_source(tape, loss, [W, V, x],
                                                    unconnected_gradients="zero"))
    jacobian = codegen.load(codegen.jacobian_source(tape, h, [V, W],
                                                    unconnected_gradients="zero"))
    other = _symbolic(batch)
    eager = other[0].gradient(other[1], [other[3], other[4], other[5]],
                              unconnected_gradients="zero")
    arguments = {"x": other[5].numpy(), "W": other[3].numpy()}
    _assert_same(gradient.gradient(*(arguments[n] for n, _, _ in gradient.INPUTS)), eager)
    eager = other[0].jacobian(other[2], [other[4], other[3]], unconnected_gradients="zero")
    _assert_same(jacobian.jacobian(*(arguments[n] for n, _, _ in jacobian.INPUTS)), eager)


def test_zeros_of_a_size_no_parameter_carries_are_refused():
    tape, loss, h, W, V, x, q = _symbolic()
    with pytest.raises(ValueError, match="symbolic size other"):
        codegen.gradient_source(tape, loss, [W, q], unconnected_gradients="zero")
    module = codegen.load(codegen.gradient_source(tape, loss, [W, q]))
    assert module.gradient(x.numpy(), W.numpy())[1] is None


def test_a_source_a_conversion_cut_gets_zeros_with_the_tapes_warning():
    x = tracer.constant(np.array([0.4, 1.6]), name="x")
    w = tracer.constant(np.array([2.0, 3.0]), name="w")
    with GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        loss = w * math.exp(np.sum(x))
    with pytest.warns(tracer.GradientTapeWarning, match="gives zeros for the tensor 'x'"):
        tape.gradient(loss, [x, w], unconnected_gradients="zero")
    with pytest.warns(tracer.GradientTapeWarning) as caught:
        source = codegen.gradient_source(tape, loss, [x, w], unconnected_gradients="zero")
    (warning,) = caught
    assert str(warning.message).startswith(
        "the module gradient_source writes gives zeros for the tensor 'x'")
    d_x, d_w = codegen.load(source).gradient(w.numpy())
    np.testing.assert_array_equal(d_x, np.zeros(2))
