"""A target that is a constant: generated modules answer as the tape does.

``np.linalg.matrix_power(x, 0)``, ``np.zeros_like(x)`` or a tensor computed
before the tape are values no tape records: ``tape.gradient`` and
``tape.jacobian`` give None for them, and so do the modules ``gradient_source``,
``jacobian_source`` and ``hessian_source`` write, which return the constant
itself where the value is asked for.  ``x * 0`` is recorded, and its zeros
come back from both.
"""

import numpy as np
import pytest

import codegen
import tracer
from codegen_support import assert_gradients_equal, generate

CONSTANTS = {
    "matrix_power_0": lambda x: np.linalg.matrix_power(x, 0),
    "zeros_like": np.zeros_like,
    "ones_like_sum": lambda x: np.sum(np.ones_like(x)),
    "computed_before": None,
}

SHAPES = [(2, 2), (3, 3)]


def _record(make, shape):
    a = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    x = tracer.constant(a, name="x")
    before = tracer.constant(a * 2.0)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        target = before if make is None else make(x)
        other = np.sum(np.sin(x))
    return tape, target, other, x


def _second_order(make, a):
    """The eager Hessian (or None) of ``sum(make(x))`` by nested tapes."""
    x = tracer.constant(a, name="x")
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            target = np.sum(make(x))
        gradient = inner.gradient(target, x)
    return None if gradient is None else outer.jacobian(gradient, x)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", sorted(CONSTANTS))
def test_a_constant_target_has_no_gradient_in_generated_code(case, shape):
    tape, target, other, x = _record(CONSTANTS[case], shape)
    assert tape.gradient(target, x) is None and tape.jacobian(target, x) is None
    value, gradient = generate(tape, target, x, with_value=True).gradient()
    assert gradient is None
    np.testing.assert_array_equal(value, target.numpy())
    assert codegen.load(codegen.jacobian_source(tape, target, x)).jacobian() is None
    assert codegen.load(codegen.hessian_source(tape, target, x)).hessian() is None
    both = generate(tape, [target, other], x)
    assert both.INPUTS == (("x", shape, "float64"),)
    assert_gradients_equal(both.gradient(x.numpy()), tape.gradient([target, other], x))


@pytest.mark.parametrize("shape", [(5, 5), (6, 6)])
def test_a_large_constant_target_is_a_parameter_only_when_its_value_is_returned(shape):
    """A large captured array is data the caller passes where the function needs it, as
    any captured array is; without its value, nothing needs it."""
    tape, target, _, x = _record(
        lambda t: np.linalg.matrix_power(t, 0) * np.arange(float(t.shape[0]))[:, None], shape)
    assert generate(tape, target, x).INPUTS == ()
    module = generate(tape, target, x, with_value=True)
    assert module.INPUTS == (("data", shape, "float64"),)
    value, gradient = module.gradient(target.numpy())
    np.testing.assert_array_equal(value, target.numpy())
    assert gradient is None
    with pytest.raises(ValueError, match="(?s)the target .* was not recorded on this tape"):
        tape.graph_of(target, [x])


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_a_target_times_zero_gives_zeros_at_both_orders(shape):
    a = np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape)
    x = tracer.constant(a, name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        zero = x * 0
        total = np.sum(zero)
    assert_gradients_equal(generate(tape, zero, x).gradient(a), tape.gradient(zero, x))
    assert_gradients_equal(codegen.load(codegen.jacobian_source(tape, zero, x)).jacobian(a),
                           tape.jacobian(zero, x))
    hessian = codegen.load(codegen.hessian_source(tape, total, x)).hessian(a)
    expected = _second_order(lambda t: t * 0, a)
    assert (hessian is None) == (expected is None)
    if expected is not None:
        np.testing.assert_array_equal(hessian, expected.numpy())


def test_the_hessian_of_a_constant_target_matches_nested_tapes():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert _second_order(lambda t: np.linalg.matrix_power(t, 0), a) is None
    tape, target, _, x = _record(lambda t: np.linalg.matrix_power(t, 0), a.shape)
    assert codegen.load(codegen.hessian_source(tape, target, x)).hessian() is None
    assert codegen.load(codegen.hvp_source(tape, target, x)).hvp(np.ones(a.shape)) is None
