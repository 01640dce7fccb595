"""A source converted to Python numbers inside the tape: its None gradient is not silent.

``float(t)``, the math module's functions, ``t.item()`` and ``t.tolist()``
return plain values, and arithmetic on them is invisible to the tape.  When
``gradient`` (or ``jacobian``) then has no gradient for the source, it warns
and names the line of the conversion; a source the target simply does not
depend on gets its None quietly, as in TensorFlow.  A module generated from
the tape (``codegen.gradient_source`` and the others) gives the same None, and
its generation warns the same way.  Any other GradientTapeWarning fails a test
here.
"""

import math
import os
import sys
import warnings

import numpy as np
import pytest

import codegen
import tracer
from tracer import GradientTape, UnconnectedGradients

pytestmark = pytest.mark.filterwarnings("error::tracer.GradientTapeWarning")


def here(offset=0):
    """``file:line`` of the caller's line plus ``offset``, as the warning names it."""
    return f"{os.path.basename(__file__)}:{sys._getframe(1).f_lineno + offset}"


@pytest.fixture
def x():
    return tracer.constant([0.4, 1.6, 2.2], name="x")


def _gradient_warning(tape, target, source, **options):
    with pytest.warns(tracer.GradientTapeWarning) as caught:
        gradient = tape.gradient(target, source, **options)
    assert len(caught) == 1
    return gradient, str(caught[0].message)


def test_math_function_of_a_source_then_python_arithmetic(x):
    w = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch([x, w])
        r = math.sqrt(x[1]) * 3.0 + 1.0
        line = here(-1)
        loss = w * r
    gradient, message = _gradient_warning(tape, loss, x)
    assert gradient is None
    assert line in message and "float(t)" in message and "'x'" in message
    assert "np.sqrt(t)" in message and "math module" in message


def test_zeros_for_an_unconnected_source_warn_too(x):
    with GradientTape() as tape:
        tape.watch(x)
        total = sum(float(a) ** 2 for a in x)
        line = here(-1)
        loss = tracer.constant(total)
    gradient, message = _gradient_warning(tape, loss, x,
                                          unconnected_gradients=UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(gradient.numpy(), np.zeros(3))
    assert "gives zeros" in message and line in message


@pytest.mark.parametrize("convert, how", [
    (lambda t: t.item(), "t.item()"),
    (lambda t: t.tolist(), "t.tolist()"),
    (lambda t: complex(t), "complex(t)"),
    (lambda t: math.exp(t), "float(t)"),
])
def test_every_conversion_to_python_values_is_named(x, convert, how):
    y = tracer.constant(1.0)
    with GradientTape() as tape:
        tape.watch([x, y])
        value = convert(np.sum(x * x))
        loss = y * (abs(value) * 2.0)
    gradient, message = _gradient_warning(tape, loss, [x, y])
    assert gradient[0] is None and gradient[1] is not None
    line = f"{os.path.basename(__file__)}:{convert.__code__.co_firstlineno}"  # the lambda's
    assert line in message and how in message


def test_a_variable_read_only_through_a_math_function():
    v = tracer.Variable(1.5, name="v")
    with GradientTape() as tape:
        e = math.exp(v)
        line = here(-1)
        loss = tracer.constant(e) * 2.0
    assert tape.watched_variables() == (v,)
    explanation = tape.explain(loss, v)
    assert explanation.reason == "escaped" and explanation.conversion == "float(t)"
    assert line in str(explanation)
    gradient, message = _gradient_warning(tape, loss, v)
    assert gradient is None and line in message and "'v'" in message


@pytest.mark.parametrize("convert", [float, int, lambda v: v.item(), lambda v: v.tolist(),
                                     lambda v: v.numpy()])
def test_converting_a_variable_reads_it(convert):
    v = tracer.Variable(2.0)
    with GradientTape() as tape:
        convert(v)
    assert tape.watched_variables() == (v,)


def test_jacobian_warns_like_gradient(x):
    with GradientTape() as tape:
        tape.watch(x)
        values = [2.0 * a for a in x.tolist()]
        line = here(-1)
        y = tracer.constant(values)
    with pytest.warns(tracer.GradientTapeWarning, match=line):
        assert tape.jacobian(y, x) is None


def test_no_warning_for_a_source_the_target_does_not_depend_on(x):
    u = tracer.constant(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = np.sum(x * 2.0)
        loss = u * 3.0
    assert tape.gradient(loss, x) is None
    assert tape.gradient(y, u) is None


def test_no_warning_when_converted_values_are_only_logged(x, capsys):
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.sin(x))
        print(f"{float(y):.3f}", x.tolist(), math.sqrt(abs(y)))
        loss = y * 2.0
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), 2.0 * np.cos(x.numpy()))
    assert capsys.readouterr().out


def test_no_warning_for_an_assignment_which_tensorflow_users_expect_to_cut(x):
    v = tracer.Variable(np.zeros(3))
    with GradientTape() as tape:
        tape.watch(x)
        v.assign(x * 2.0)
        y = np.sum(v * 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tape.gradient(y, x) is None


def test_no_warning_for_a_logged_loss_beside_a_loss_that_does_not_depend_on_it():
    """Two heads, one loss logged mid-tape: the other loss's gradient is None for the first
    head's variable because it does not depend on it, not because of the log line."""
    a, b = tracer.Variable(np.ones(3), name="a"), tracer.Variable(np.ones(3), name="b")
    with GradientTape(persistent=True) as tape:
        loss_a = np.sum(a ** 2)
        print(float(loss_a))
        loss_b = np.sum(b * np.arange(3.0))
        print(float(loss_b))
    gradients = tape.gradient(loss_b, [a, b])
    assert gradients[0] is None
    np.testing.assert_allclose(gradients[1].numpy(), np.arange(3.0))


def test_no_warning_when_the_conversion_comes_after_the_target(x):
    w = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch([x, w])
        loss = w * 3.0
        print(math.sqrt(float(np.sum(x))))
    assert tape.gradient(loss, x) is None


@pytest.mark.parametrize("rewrap", [tracer.constant, np.float32, lambda r: np.array([r])],
                         ids=["tensor", "numpy-scalar", "array"])
def test_a_converted_number_that_comes_back_in_another_form(x, rewrap):
    w = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch([x, w])
        r = float(np.sum(x)) * 3.0
        line = here(-1)
        loss = np.sum(w * rewrap(r))
    gradient, message = _gradient_warning(tape, loss, x)
    assert gradient is None and line in message


def test_numbers_converted_one_by_one_and_made_an_array_again(x):
    w = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch([x, w])
        values = [float(a) ** 2 for a in x]
        line = here(-1)
        loss = np.sum(w * np.array(values))
    gradient, message = _gradient_warning(tape, loss, x)
    assert gradient is None and line in message


# --- generated modules --------------------------------------------------------------

def _recorded_with_a_math_function(shape):
    """``w * exp(sum(x)) * 3`` with the exponential taken by the math module: ``x`` gets
    no gradient, ``w`` does; and the line of the conversion."""
    x = tracer.constant(np.linspace(-0.4, 0.5, int(np.prod(shape))).reshape(shape), name="x")
    w = tracer.constant(np.full(shape, 2.0), name="w")
    with GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        r = math.exp(np.sum(x)) * 3.0
        line = here(-1)
        loss = w * r
    return tape, loss, x, w, line


@pytest.mark.parametrize("shape", [(3,), (2, 2)])
def test_generated_gradient_warns_where_tape_gradient_warns(shape):
    tape, loss, x, w, line = _recorded_with_a_math_function(shape)
    eager, eager_message = _gradient_warning(tape, loss, [x, w])
    with pytest.warns(tracer.GradientTapeWarning) as caught:
        source = codegen.gradient_source(tape, loss, [x, w], with_value=True)
        generated_line = here(-1)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith("the module gradient_source writes gives None for the tensor 'x'")
    assert line in message and "float(t)" in message
    assert message.partition(". ")[2] == eager_message.partition(". ")[2]
    assert f"{os.path.basename(caught[0].filename)}:{caught[0].lineno}" == generated_line
    value, (d_x, d_w) = codegen.load(source).gradient(w.numpy())
    assert d_x is None and eager[0] is None
    np.testing.assert_allclose(d_w, eager[1].numpy(), rtol=1e-14)
    np.testing.assert_allclose(value, loss.numpy(), rtol=1e-14)


@pytest.mark.parametrize("generate, name", [
    (lambda tape, loss, x, w: codegen.jacobian_source(tape, loss, [x, w]), "jacobian_source"),
    (lambda tape, loss, x, w: codegen.hessian_source(tape, np.sum(loss), x), "hessian_source"),
    (lambda tape, loss, x, w: codegen.hvp_source(tape, np.sum(loss), x), "hvp_source"),
])
def test_every_generated_derivative_warns_the_same(generate, name):
    tape, loss, x, w, line = _recorded_with_a_math_function((3,))
    with tape:
        total = np.sum(loss)
    with pytest.warns(tracer.GradientTapeWarning) as caught:
        source = generate(tape, total if name != "jacobian_source" else loss, x, w)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(f"the module {name} writes gives None for the tensor 'x'")
    assert line in message
    module = codegen.load(source)
    function = getattr(module, name.partition("_")[0])
    result = function(*(np.ones(shape) for _, shape, _ in module.INPUTS))
    assert (result[0] if name == "jacobian_source" else result) is None
    with pytest.warns(tracer.GradientTapeWarning, match=line):
        assert tape.jacobian(loss, x) is None


def test_generated_code_is_quiet_where_tape_gradient_is():
    """No conversion, or only a log line after the target: no warning from generation
    either.  (One before the target could have steered the recording, which a module
    repeats: tests/codegen/test_specialised_modules.py.)"""
    x = tracer.constant([0.4, 1.6, 2.2], name="x")
    u = tracer.constant(3.0, name="u")
    with GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = np.sum(np.sin(x))
        loss = y * 2.0
        print(float(y), float(loss))
    for generate in (codegen.gradient_source, codegen.jacobian_source):
        module = codegen.load(generate(tape, loss, [x, u]))
        result = getattr(module, generate.__name__.partition("_")[0])(x.numpy())
        assert result[1] is None
        np.testing.assert_allclose(result[0], 2.0 * np.cos(x.numpy()), rtol=1e-14)
    assert tape.gradient(loss, u) is None
