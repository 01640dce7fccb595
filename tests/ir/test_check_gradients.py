"""``tracer.check_gradients`` must reject wrong derivative rules, at the order where they go wrong.

The primitives here are deliberately wrong.  Primitive names are global, so
they are defined once, at import.
"""

import numpy as np
import pytest

import ir
import tracer
from ir.primitives.control import stop_gradient
from ir.primitives.elementwise import cos, log
from tracer.core import apply

X = np.array([0.3, -1.2, 2.0])

# sin with the derivative's sign flipped.
WRONG_SIN = ir.Primitive("test_wrong_sin", np.sin, elementwise=True,
                         vjps=(lambda g, out, x: -(g * cos(x)),))
# The right first derivative, but frozen: its own derivative is 0 instead of -sin.
FROZEN_SIN = ir.Primitive("test_frozen_sin", np.sin, elementwise=True,
                          vjps=(lambda g, out, x: g * stop_gradient(cos(x)),))
# A rule that returns NaN: comparisons with NaN are false, which must not read as a pass.
NAN_SIN = ir.Primitive("test_nan_sin", np.sin, elementwise=True,
                       vjps=(lambda g, out, x: g * log(x - 10.0),))
RIGHT_SIN = ir.Primitive("test_right_sin", np.sin, elementwise=True,
                         vjps=(lambda g, out, x: g * cos(x),))


def call(prim):
    return lambda x: apply(prim, (x,), {})


def test_a_right_rule_passes_to_third_order():
    assert tracer.check_gradients(call(RIGHT_SIN), X, order=3) is None


def test_a_wrong_first_derivative_fails():
    with pytest.raises(AssertionError, match="order 1"):
        tracer.check_gradients(call(WRONG_SIN), X)


def test_a_wrong_second_derivative_fails_only_at_order_two():
    tracer.check_gradients(call(FROZEN_SIN), X, order=1)
    with pytest.raises(AssertionError, match="order 2"):
        tracer.check_gradients(call(FROZEN_SIN), X, order=2)


def test_a_nan_derivative_fails():
    with np.errstate(invalid="ignore"), pytest.raises(AssertionError, match="nan"):
        tracer.check_gradients(call(NAN_SIN), X)


def test_a_wrong_rule_inside_a_composition_fails():
    with pytest.raises(AssertionError):
        tracer.check_gradients(lambda x, y: np.sum(call(WRONG_SIN)(x) * y), X, X + 1.0)


def test_a_wrong_rule_fails_in_float32():
    with pytest.raises(AssertionError):
        tracer.check_gradients(call(WRONG_SIN), X.astype(np.float32))
    tracer.check_gradients(call(RIGHT_SIN), X.astype(np.float32), order=2)


def test_float32_outputs_of_float64_inputs_get_float32_tolerances():
    tracer.check_gradients(lambda a: a.astype(np.float32) ** 2, np.array([0.3, 1.7, -2.2]))
