"""Errors a user can act on: bad arguments that leave the tape usable, and numpy
functions without a derivative rule that name the function and the user's line."""

import os

import numpy as np
import pytest

import tracer
from tracer import GradientTape


@pytest.fixture
def one_shot():
    """A non-persistent tape that recorded y = x * x at x = 3."""
    x = tracer.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return tape, x, y


def user_line(info):
    """``file:line`` of the innermost frame of this test module in a raised error."""
    entry = [e for e in info.traceback if str(e.path) == __file__][-1]
    return f"{os.path.basename(__file__)}:{entry.lineno + 1}"


# --- argument errors do not consume the tape ---------------------------------------

def test_target_none_is_a_type_error(one_shot):
    tape, x, y = one_shot
    with pytest.raises(TypeError, match="`target`.*received None"):
        tape.gradient(None, x)
    assert tape.gradient(y, x) == 6.0


@pytest.mark.parametrize("call", ["gradient", "jacobian"])
def test_unknown_unconnected_gradients_is_a_value_error(one_shot, call):
    tape, x, y = one_shot
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'nonsense'"):
        getattr(tape, call)(y, x, unconnected_gradients="nonsense")
    assert getattr(tape, call)(y, x) == 6.0


def test_unknown_unconnected_gradients_in_batch_jacobian():
    x = tracer.constant([[1.0, 2.0]])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.batch_jacobian(y, x, unconnected_gradients="nonsense")
    np.testing.assert_array_equal(tape.batch_jacobian(y, x), [[[2.0, 0.0], [0.0, 4.0]]])


@pytest.mark.parametrize("bad", [3.0, np.array([1.0]), "x"])
def test_non_tensor_targets_and_sources_are_type_errors(one_shot, bad):
    tape, x, y = one_shot
    with pytest.raises(TypeError, match="must be tracer.Tensor or tracer.Variable"):
        tape.gradient(bad, x)
    with pytest.raises(TypeError, match="must be tracer.Tensor or tracer.Variable"):
        tape.gradient(y, [x, bad])
    assert tape.gradient(y, x) == 6.0


# --- numpy functions without a rule --------------------------------------------------

UNSUPPORTED = {
    "np.unwrap": lambda t: np.unwrap(t),
    "np.linalg.tensorinv": lambda t: np.linalg.tensorinv(t, ind=1),
    "np.cov": lambda t: np.cov(t),
    "np.heaviside": lambda t: np.heaviside(t, 0.5),
    "np.add.reduce": lambda t: np.add.reduce(t),
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_an_unsupported_function_on_a_watched_tensor_names_itself_and_the_line(name):
    x = tracer.constant([[2.0, 1.0], [1.0, 3.0]])
    with GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(tracer.UnsupportedOperation) as info:
            UNSUPPORTED[name](x)
    message = str(info.value)
    assert message.startswith(f"{name} has no derivative rule")
    assert user_line(info) in message
    assert "custom_gradient" in message and "stop_recording" in message


def test_an_unsupported_function_on_a_recorded_intermediate_raises():
    x = tracer.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
        with pytest.raises(tracer.UnsupportedOperation, match="np.unwrap") as info:
            np.unwrap(y)
    assert user_line(info) in str(info.value)


def test_an_unsupported_function_on_an_accessed_variable_raises():
    v = tracer.Variable(np.eye(2))
    with GradientTape() as tape:
        with pytest.raises(tracer.UnsupportedOperation, match="np.linalg.tensorinv"):
            np.linalg.tensorinv(v, ind=1)
    assert isinstance(tracer.UnsupportedOperation("x"), TypeError)


def test_an_outer_tape_recording_is_enough_to_raise():
    x = tracer.constant([1.0, 2.0])
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape():
            with pytest.raises(tracer.UnsupportedOperation):
                np.unwrap(x)


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_an_unsupported_function_outside_a_tape_just_computes(name):
    x = np.array([[2.0, 1.0], [1.0, 3.0]])
    result = UNSUPPORTED[name](tracer.constant(x))
    np.testing.assert_allclose(np.asarray(result), UNSUPPORTED[name](x))


def test_an_unsupported_function_on_untracked_values_inside_a_tape_just_computes():
    x = tracer.constant([1.0, 2.0])
    c = tracer.constant([3.0, 4.0])
    frozen = tracer.Variable([5.0, 6.0], trainable=False)
    with GradientTape() as tape:
        tape.watch(x)
        np.testing.assert_array_equal(np.unwrap(c), [3.0, 4.0])
        np.testing.assert_array_equal(np.unwrap(frozen), [5.0, 6.0])
        np.testing.assert_array_equal(np.unwrap(x.astype(np.int64)), [1, 2])
        with tape.stop_recording():
            np.testing.assert_array_equal(np.unwrap(x), [1.0, 2.0])


def test_watching_accessed_variables_off_lets_unsupported_functions_compute():
    v = tracer.Variable([1.0, 2.0])
    with GradientTape(watch_accessed_variables=False) as tape:
        np.testing.assert_array_equal(np.cumsum(v), [1.0, 3.0])
    assert tape.watched_variables() == ()
