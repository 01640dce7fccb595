"""``tape.explain``: why a gradient is None, with the user's line where the path broke."""

import operator
import os
import sys

import numpy as np
import pytest

import tracer
from tracer import GradientTape

pytestmark = pytest.mark.filterwarnings("error::tracer.GradientTapeWarning")

def here(offset=0):
    """``file:line`` of the caller's line plus ``offset``, as an explanation names it."""
    line = sys._getframe(1).f_lineno + offset
    return f"{os.path.basename(__file__)}:{line}"


@pytest.fixture
def x():
    return tracer.constant([0.4, 1.6, -2.2])


def test_connected(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.sin(x) * x)
    explanation = tape.explain(y, x)
    assert explanation.connected and explanation.reason == "connected"
    assert "not None" in str(explanation)


def test_connected_zero_gradient_is_the_maths(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.maximum(x, 5.0))
    explanation = tape.explain(y, x)
    assert explanation.reason == "connected" and "zero" in str(explanation)


def test_source_not_watched(x):
    with GradientTape() as tape:
        y = np.sum(x * x)
    explanation = tape.explain(y, x)
    assert not explanation.connected and explanation.reason == "not_watched"
    assert "tape.watch(x)" in str(explanation)


def test_untrainable_variable():
    v = tracer.Variable([1.0, 2.0], trainable=False)
    with GradientTape() as tape:
        y = np.sum(v * v)
    explanation = tape.explain(y, v)
    assert explanation.reason == "not_watched" and "trainable=False" in str(explanation)


def test_tape_that_does_not_watch_accessed_variables():
    v = tracer.Variable([1.0, 2.0])
    with GradientTape(watch_accessed_variables=False) as tape:
        y = np.sum(v * v)
    explanation = tape.explain(y, v)
    assert explanation.reason == "not_watched"
    assert "watch_accessed_variables=False" in str(explanation)


def test_watched_variable_is_connected():
    v = tracer.Variable([1.0, 2.0])
    with GradientTape() as tape:
        y = np.sum(v * v)
    assert tape.explain(y, v).reason == "connected"


def test_stop_gradient(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(tracer.stop_gradient(x) * 2.0)
        line = here(-1)
    explanation = tape.explain(y, x)
    assert explanation.reason == "no_gradient_op"
    assert "stop_gradient" in str(explanation) and line in str(explanation)


def test_round(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.round(x) ** 2)
        line = here(-1)
    explanation = tape.explain(y, x)
    assert explanation.reason == "no_gradient_op"
    assert "`round`, which passes no gradient: it is piecewise constant" in str(explanation)
    assert line in str(explanation)


def test_argmax_indexing(x):
    w = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch([x, w])
        i = np.argmax(x)
        line = here(-1)
        y = w[i] * 2.0
    explanation = tape.explain(y, x)
    assert explanation.reason == "no_gradient_op"
    assert "argmax" in str(explanation) and line in str(explanation)
    assert tape.explain(y, w).reason == "connected"


def test_cast_to_integer(x):
    w = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch([x, w])
        n = x.astype(int)
        line = here(-1)
        y = np.sum(n * w)
    explanation = tape.explain(y, x)
    assert explanation.reason == "integer_path"
    assert "int64" in str(explanation) and line in str(explanation)


def test_comparison(x):
    w = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch([x, w])
        y = np.sum(np.where(x > 0, w, 0.0))
        line = here(-1)
    explanation = tape.explain(y, x)
    assert explanation.reason == "no_gradient_op"
    assert "returns booleans" in str(explanation) and line in str(explanation)


def test_ndarray_method_escapes(x):
    X = np.arange(6.0).reshape(2, 3)
    with GradientTape() as tape:
        tape.watch(x)
        with pytest.warns(tracer.GradientTapeWarning):
            h = X.dot(x)
            line = here(-1)
        y = np.sum(h)
    explanation = tape.explain(y, x)
    assert explanation.reason == "escaped"
    assert "X @ t" in str(explanation) and line in str(explanation)


def test_escape_of_an_intermediate_value(x):
    X = np.arange(6.0).reshape(2, 3)
    with GradientTape() as tape:
        tape.watch(x)
        with pytest.warns(tracer.GradientTapeWarning):
            h = X.dot(np.sin(x))
        line = here(-1)
        y = np.sum(h)
    assert line in str(tape.explain(y, x))


def test_asarray_escape_is_traced_by_memory(x):
    w = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch([x, w])
        with pytest.warns(tracer.GradientTapeWarning):
            a = np.asarray(x * 2.0)
            line = here(-1)
        y = np.sum(a * w)
    explanation = tape.explain(y, x)
    assert explanation.reason == "escaped" and "probably" not in str(explanation)
    assert line in str(explanation)


def test_stop_recording(x):
    with GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = np.sum(x * x)
    explanation = tape.explain(y, x)
    assert explanation.reason == "not_recorded"
    assert "stop_recording" in str(explanation) and "outside" in str(explanation)


def test_target_computed_from_other_values(x):
    w = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch([x, w])
        y = w * 3.0
        line = here(-1)
    explanation = tape.explain(y, x)
    assert explanation.reason == "unconnected" and line in str(explanation)


def test_target_that_is_not_a_tensor(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = 2.0 * 3.0
    assert tape.explain(y, x).reason == "target_is_constant"


def test_target_converted_to_a_python_number(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = float(np.sum(x))
        line = here(-1)
    explanation = tape.explain(y, x)
    assert explanation.reason == "escaped" and "probably" not in str(explanation)
    assert "float(t)" in str(explanation) and line in str(explanation)


def test_consumed_tape_raises(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * x)
    tape.gradient(y, x)
    with pytest.raises(tracer.TapeStateError):
        tape.explain(y, x)


# --- conversions to Python numbers and lists ------------------------------------

@pytest.mark.parametrize("convert, how", [(float, "float(t)"),
                                          (operator.methodcaller("item"), "t.item()")])
def test_python_number_reentering_warns_where_it_reenters(x, convert, how):
    w = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch([x, w])
        scale = convert(np.sum(x))
        converted = here(-1)
        with pytest.warns(tracer.GradientTapeWarning, match=r"float\(t\)|item\(\)") as caught:
            y = np.sum(w * scale)
            reentry = here(-1)
    message = str(caught[0].message)
    assert reentry in message and converted in message and how in message
    explanation = tape.explain(y, x)
    assert explanation.reason == "escaped" and "probably" not in str(explanation)
    assert converted in str(explanation) and how in str(explanation)


def test_numpy_view_reentering_warns_and_is_explained(x):
    w = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch([x, w])
        values = (x * 2.0).numpy()
        converted = here(-1)
        with pytest.warns(tracer.GradientTapeWarning, match=r"t\.numpy\(\)"):
            y = np.sum(w * values)
    explanation = tape.explain(y, x)
    assert explanation.reason == "escaped" and "probably" not in str(explanation)
    assert converted in str(explanation)


def test_list_conversion_is_explained_as_a_probable_escape(x):
    w = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch([x, w])
        values = np.sin(x).tolist()
        converted = here(-1)
        y = np.sum(w * np.array(values))
    explanation = tape.explain(y, x)
    assert explanation.reason == "escaped" and "probably" in str(explanation)
    assert converted in str(explanation) and "t.tolist()" in str(explanation)


def test_logging_values_inside_the_tape_neither_warns_nor_cuts(x, capsys):
    """Any GradientTapeWarning is an error in this module, so a warning fails the test."""
    with GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * x)
        print(f"loss {float(y):.3f} {y} {y.item():.3f}", y.numpy().round(2), x.tolist())
        z = y * 2.0
    np.testing.assert_allclose(tape.gradient(z, x), 4.0 * x.numpy())
    assert "loss" in capsys.readouterr().out


# --- variables and nested tapes ------------------------------------------------------

def test_variable_read_before_and_after_assign_is_connected():
    v = tracer.Variable([1.0, 2.0])
    with GradientTape() as tape:
        first = np.sum(v * 2.0)
        v.assign([3.0, 4.0])
        y = first + np.sum(v * v)
    assert tape.explain(y, v).reason == "connected"
    np.testing.assert_allclose(tape.gradient(y, v), [8.0, 10.0])


def test_value_passed_through_assign_is_not_differentiable(x):
    v = tracer.Variable([0.0, 0.0, 0.0])
    with GradientTape() as tape:
        tape.watch(x)
        v.assign(x * 2.0)
        line = here(-1)
        y = np.sum(v * 3.0)
    explanation = tape.explain(y, x)
    assert explanation.reason == "escaped" and "probably" not in str(explanation)
    assert "v.assign(t)" in str(explanation) and line in str(explanation)
    assert tape.gradient(y, x) is None


def test_custom_gradient_returning_none(x):
    @tracer.custom_gradient
    def scaled(a, b):
        def grad(g):
            return g * b, None
        return a * b, grad

    b = tracer.constant([3.0, 4.0, 5.0])
    with GradientTape(persistent=True) as tape:
        tape.watch([x, b])
        y = np.sum(scaled(x, b))
        line = here(-1)
    explanation = tape.explain(y, b)
    assert explanation.reason == "custom_gradient_none" and line in str(explanation)
    assert tape.gradient(y, b) is None
    assert tape.explain(y, x).reason == "connected"


def test_nested_tapes_each_explain_their_own_watching(x):
    with GradientTape() as outer:
        with GradientTape() as inner:
            inner.watch(x)
            y = np.sum(x ** 3)
        dy = inner.gradient(y, x)
    explanation = outer.explain(dy, x)
    assert explanation.reason == "not_watched" and "tape.watch" in str(explanation)

    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = np.sum(x ** 3)
        dy = inner.gradient(y, x)
    assert outer.explain(dy, x).reason == "connected"
