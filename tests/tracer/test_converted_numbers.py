"""A number computed from a converted value: the gradient is not None, but misses a path.

``n = math.sqrt(np.sum(x ** 2))`` then ``y = np.sum(x) / n`` gives the
gradient of ``sum(x) / c``: ``n`` is a Python float no tape follows.  A tape
cannot tag a float, so it warns on circumstance (``tracer.diagnostics.explain_numbers``
states the rule): a number the user's code passed, not written as a literal,
entering the target's path after a value computed from the source was
converted.  These tests hold both sides of that rule: the cases it must catch,
eagerly and in generated code, and the idioms it must leave alone (a logged
loss, literals, tapegen's own constants, a conversion marked as intended).
"""

import math
import os
import sys

import numpy as np
import pytest

import codegen
import tracer
from tracer import GradientTape

pytestmark = pytest.mark.filterwarnings("error::tracer.GradientTapeWarning")

SHAPES = [(3,), (2, 3)]


def here(offset=0):
    """``file:line`` of the caller's line plus ``offset``, as a warning names it."""
    return f"{os.path.basename(__file__)}:{sys._getframe(1).f_lineno + offset}"


def _values(shape):
    return np.linspace(0.3, 1.9, int(np.prod(shape))).reshape(shape)


def _one_warning(call):
    with pytest.warns(tracer.GradientTapeWarning) as caught:
        result = call()
    assert len(caught) == 1
    return result, str(caught[0].message)


def _normalised_sum(x):
    """``sum(x) / |x|`` with the norm taken through Python floats: the issue's example."""
    n = math.sqrt(np.sum(x ** 2))
    return np.sum(x) / n


@pytest.mark.parametrize("shape", SHAPES)
def test_a_norm_through_the_math_module_is_named_eagerly_and_in_generated_code(shape):
    x = tracer.constant(_values(shape), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = _normalised_sum(x)
    converted = f"{os.path.basename(__file__)}:{_normalised_sum.__code__.co_firstlineno + 2}"
    entered = f"{os.path.basename(__file__)}:{_normalised_sum.__code__.co_firstlineno + 3}"
    norm = np.linalg.norm(x.numpy())
    gradient, message = _one_warning(lambda: tape.gradient(y, x))
    np.testing.assert_allclose(gradient.numpy(), np.full(shape, 1.0 / norm), rtol=1e-14)
    assert message.startswith("tape.gradient may miss part of the gradient for the tensor 'x'")
    assert converted in message and entered in message and "float(t)" in message
    explanation = tape.explain(y, x)
    assert explanation.connected and explanation.reason == "converted_number"
    assert converted in str(explanation) and entered in str(explanation)
    assert explanation.conversion == "float(t)"
    source, message = _one_warning(lambda: codegen.gradient_source(tape, y, x))
    assert message.startswith("the module gradient_source writes may miss part of the gradient")
    assert converted in message and entered in message
    np.testing.assert_allclose(codegen.load(source).gradient(x.numpy()), gradient.numpy(),
                               rtol=1e-14)


@pytest.mark.parametrize("norm", [
    lambda squares: float(np.sum(squares)) ** 0.5,
    lambda squares: np.sum(squares).item() ** 0.5,
    lambda squares: sum(squares.tolist()) ** 0.5,
    lambda squares: np.sqrt(np.sum(squares.numpy())),
    lambda squares: np.float32(math.sqrt(np.sum(squares))),
], ids=["float", "item", "tolist", "numpy", "float32"])
def test_every_conversion_followed_by_python_arithmetic_is_caught(norm):
    x = tracer.constant(_values((4,)), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sum(x) / norm(x ** 2)
        line = here(-1)
    gradient, message = _one_warning(lambda: tape.gradient(y, x))
    assert line in message and "may miss part of the gradient" in message
    np.testing.assert_allclose(gradient.numpy(), 1.0 / np.linalg.norm(x.numpy()), rtol=1e-6)


def test_the_same_computation_in_tensors_is_silent_and_complete():
    """The fix the warning names: np.sqrt on the tensor keeps the path, at both orders."""
    for shape in SHAPES:
        a = _values(shape)
        x = tracer.constant(a, name="x")
        with GradientTape(persistent=True) as outer:
            outer.watch(x)
            with GradientTape(persistent=True) as inner:
                inner.watch(x)
                y = np.sum(x) / np.sqrt(np.sum(x ** 2))
            gradient = inner.gradient(y, x)
            first = np.sum(gradient * a)
        norm, total = np.linalg.norm(a), np.sum(a)
        np.testing.assert_allclose(gradient.numpy(), 1.0 / norm - total * a / norm ** 3,
                                   rtol=1e-13)
        # d/dx of <grad, a> at x = a, by central differences
        step, expected = 1e-6, []
        for k in range(a.size):
            e = np.zeros(a.size)
            e[k] = step
            e = e.reshape(shape)
            at = [np.sum((1.0 / np.linalg.norm(b) - np.sum(b) * b / np.linalg.norm(b) ** 3) * a)
                  for b in (a + e, a - e)]
            expected.append((at[0] - at[1]) / (2 * step))
        np.testing.assert_allclose(outer.gradient(first, x).numpy().ravel(), expected,
                                   rtol=1e-6, atol=1e-8)
        module = codegen.load(codegen.gradient_source(inner, y, x))
        np.testing.assert_allclose(module.gradient(a), gradient.numpy(), rtol=1e-13)


def test_a_math_function_of_the_source_itself():
    x = tracer.constant(0.7, name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * math.exp(x)
        line = here(-1)
    gradient, message = _one_warning(lambda: tape.gradient(y, x))
    assert gradient.numpy() == pytest.approx(math.exp(0.7)) and line in message
    source, message = _one_warning(lambda: codegen.hessian_source(tape, y, x))
    assert message.startswith("the module hessian_source writes gives None for the tensor 'x'")
    assert line in message and codegen.load(source).hessian(0.7) is None


def test_a_variable_normalised_on_an_earlier_line():
    v = tracer.Variable(_values((2, 2)), name="v")
    with GradientTape(persistent=True) as tape:
        scale = 1.0 / float(np.max(np.abs(v)))
        converted = here(-1)
        y = np.sum(v * v) * scale
        entered = here(-1)
    gradient, message = _one_warning(lambda: tape.gradient(y, v))
    assert "the variable 'v'" in message and converted in message and entered in message
    np.testing.assert_allclose(gradient.numpy(), 2.0 * v.numpy() * scale, rtol=1e-14)
    _, message = _one_warning(lambda: codegen.jacobian_source(tape, y, v))
    assert message.startswith("the module jacobian_source writes may miss") and entered in message


# --- what must stay silent (any GradientTapeWarning fails these tests) -----------------

def test_a_loss_logged_and_then_used_with_a_setting_from_elsewhere(capsys):
    """``print(float(loss))`` and then ``loss * settings["weight"]``: the target uses
    ``loss`` itself, so the conversion is a log line."""
    settings = {"weight": float(np.float64(0.25) * 3)}
    x = tracer.constant(_values((3,)), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        loss = np.sum(x ** 2)
        print(f"loss {float(loss):.3f}")
        total = loss * settings["weight"] + np.sum(x) / settings["weight"]
    np.testing.assert_allclose(tape.gradient(total, x).numpy(),
                               2 * 0.75 * x.numpy() + 1 / 0.75, rtol=1e-14)
    assert tape.explain(total, x).reason == "connected"
    with pytest.warns(tracer.GradientTapeWarning, match=r"repeats at every call the value"):
        codegen.gradient_source(tape, total, x)  # a module repeats what a log line read
    assert "loss" in capsys.readouterr().out


def test_a_target_computed_before_the_conversion():
    x = tracer.constant(_values((3,)), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sum(x) * float(np.float64(1.5))
        n = math.sqrt(np.sum(x ** 2))
        later = np.sum(x) / n
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.full(3, 1.5))
    assert tape.explain(y, x).reason == "connected"
    with pytest.warns(tracer.GradientTapeWarning):
        tape.gradient(later, x)


def test_literals_after_a_conversion_of_another_value():
    def scaled(t, factor):
        return t * factor

    x = tracer.constant(_values((3,)), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        mean = float(np.mean(x))
        y = np.sum(scaled(x, 0.5)) + np.sum(x ** 2) / 3.0 - 1e-3 * np.sum(-2.5 * x)
    assert mean > 0
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 0.5 + 2 * x.numpy() / 3 + 2.5e-3)
    assert tape.explain(y, x).reason == "connected"


def test_tapegens_own_constants_after_a_conversion():
    stats = pytest.importorskip("tracer.scipy.stats")
    x = tracer.constant(_values((4,)), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        peak = float(np.max(x))
        y = np.sum(stats.norm.logpdf(x)) + np.sum(np.cbrt(x))
    assert peak > 0
    expected = -x.numpy() + x.numpy() ** (-2.0 / 3.0) / 3.0
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-13)
    with pytest.warns(tracer.GradientTapeWarning) as caught:
        codegen.gradient_source(tape, y, x)
    (warning,) = caught  # of the conversion only, which the module repeats
    assert "float(t)" in str(warning.message) and "repeats at every call" in str(warning.message)


def test_a_conversion_marked_as_carrying_no_gradient():
    x = tracer.constant(_values((2, 3)), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        n = math.sqrt(float(tracer.stop_gradient(np.sum(x ** 2))))
        y = np.sum(x) / n
        with tape.stop_recording():
            m = math.sqrt(np.sum(x ** 2))
        z = np.sum(x) / m
    for target in (y, z):
        np.testing.assert_allclose(tape.gradient(target, x).numpy(),
                                   1.0 / np.linalg.norm(x.numpy()), rtol=1e-14)
        assert tape.explain(target, x).reason == "connected"
