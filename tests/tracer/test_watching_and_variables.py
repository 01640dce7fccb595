"""What a tape records: watched tensors, accessed variables, the recording
rule (a float input on the tape), and variables' reads and assignments."""

import numpy as np
import pytest

import tracer
from tracer import GradientTape


def op_names(tape):
    return [n.op for n in tape.graph if n.kind == "op"]


# --- the recording rule ---------------------------------------------------------

def test_an_op_is_recorded_only_when_an_input_is_on_the_tape():
    x = tracer.constant(2.0)
    c = tracer.constant(5.0)
    with GradientTape() as tape:
        tape.watch(x)
        c * 3.0
        y = x * c
        np.sin(y)
    assert op_names(tape) == ["multiply", "sin"]


def test_outputs_of_recorded_ops_are_on_the_tape():
    x = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = np.exp(y) + 1.0
    assert op_names(tape) == ["multiply", "exp", "add"]
    np.testing.assert_allclose(tape.gradient(z, x), 4.0 * np.exp(4.0))


def test_integer_results_are_recorded_and_carry_no_gradient():
    """Unlike TensorFlow, ops on recorded integer and boolean values are recorded too
    (a graph must recompute a mask, not keep it); no gradient flows through them."""
    x = tracer.constant([1.5, 2.5])
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        i = x.astype(np.int64)
        mask = x > 2.0
        doubled = i * 2
        weights = mask * 1.0
    assert op_names(tape) == ["cast", "greater", "multiply", "multiply"]
    assert tape.gradient([doubled, weights], x) is None


def test_complex_tensors_are_watched_and_recorded():
    z = tracer.constant(np.array([1.0 + 2.0j]))
    with GradientTape() as tape:
        tape.watch(z)
        w = z * z
    assert op_names(tape) == ["multiply"]
    np.testing.assert_allclose(tape.gradient(w, z).numpy(), 2 * np.conj(z.numpy()))


def test_each_tape_records_independently():
    x = tracer.constant(2.0)
    y = tracer.constant(3.0)
    with GradientTape() as tx:
        tx.watch(x)
        with GradientTape() as ty:
            ty.watch(y)
            a = x * x
            b = y * y
            c = a * b
    assert op_names(tx) == ["multiply", "multiply"]
    assert op_names(ty) == ["multiply", "multiply"]
    assert tx.gradient(c, x) == 2 * 2.0 * 9.0
    assert ty.gradient(c, y) == 2 * 3.0 * 4.0


def test_a_value_made_inside_the_tape_from_unwatched_inputs_is_a_constant():
    x = tracer.constant(2.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        c = tracer.constant(1.0) * 3.0
        w = c * x
    assert tape.gradient(w, c) is None
    assert tape.gradient(w, c, unconnected_gradients="zero") == 0.0
    assert tape.gradient(w, x) == 3.0


def test_intermediates_can_be_sources():
    x = tracer.constant(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, y) == 2 * 9.0
    assert tape.gradient(z, [x, y]) == [108.0, 18.0]


# --- watch ------------------------------------------------------------------------

def test_watch_accepts_nested_structures():
    x, y, z = (tracer.constant(v) for v in (1.0, 2.0, 3.0))
    with GradientTape() as tape:
        tape.watch([x, {"k": (y,)}, (z,)])
        total = x * 1.0 + y * 2.0 + z * 3.0
    assert tape.gradient(total, [x, y, z]) == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("thing", [3.0, np.array([1.0]), "x", None])
def test_watch_rejects_non_tensors(thing):
    with GradientTape() as tape:
        with pytest.raises(ValueError, match="not a tracer.Tensor or tracer.Variable"):
            tape.watch(thing)


def test_watch_rejects_a_structure_holding_a_non_tensor_and_watches_nothing():
    x = tracer.constant(1.0)
    with GradientTape() as tape:
        with pytest.raises(ValueError, match="float"):
            tape.watch([x, 3.0])
        y = x * 2.0
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
def test_watching_a_non_float_tensor_warns_and_gets_no_gradient(dtype):
    xi = tracer.constant(np.array([1, 2], dtype=dtype))
    with GradientTape() as tape:
        with pytest.warns(tracer.GradientTapeWarning, match="must be floating") as record:
            tape.watch(xi)
        y = xi * 2.5
    assert record[0].filename == __file__
    assert op_names(tape) == []
    assert tape.gradient(y, xi) is None
    with GradientTape() as tape:
        with pytest.warns(tracer.GradientTapeWarning):
            tape.watch(xi)
    assert tape.gradient(xi, xi) is None


# --- variables and watched_variables ---------------------------------------------

def test_trainable_variables_read_inside_the_context_are_watched():
    v = tracer.Variable(3.0)
    with GradientTape() as tape:
        y = v * v
    assert tape.watched_variables() == (v,)
    assert tape.gradient(y, v) == 6.0


def test_a_variable_created_inside_the_context_is_watched_when_read():
    with GradientTape() as tape:
        v = tracer.Variable(2.0)
        y = v * v * v
    assert tape.gradient(y, v) == 12.0


def test_variables_read_outside_the_context_are_constants():
    v = tracer.Variable(3.0)
    y = v * v
    with GradientTape() as tape:
        z = y + 1.0
    assert tape.watched_variables() == ()
    assert tape.gradient(z, v) is None


def test_guide_example_trainable_nontrainable_tensor_and_constant():
    x0 = tracer.Variable(3.0, name="x0")
    x1 = tracer.Variable(3.0, name="x1", trainable=False)
    x2 = tracer.Variable(2.0, name="x2") + 1.0
    x3 = tracer.constant(3.0, name="x3")
    with GradientTape() as tape:
        y = x0 ** 2 + x1 ** 2 + x2 ** 2
    grads = tape.gradient(y, [x0, x1, x2, x3])
    assert grads[0] == 6.0
    assert grads[1:] == [None, None, None]
    assert tape.watched_variables() == (x0,)


def test_a_non_trainable_variable_gets_a_gradient_when_watched_explicitly():
    v = tracer.Variable(3.0, trainable=False)
    with GradientTape() as tape:
        tape.watch(v)
        y = v * v
    assert tape.watched_variables() == (v,)
    assert tape.gradient(y, v) == 6.0


def test_watch_accessed_variables_false_watches_only_explicit_ones():
    x1 = tracer.Variable(2.0)
    x2 = tracer.Variable(1.0)
    with GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x2)
        y = x1 ** 2
        z = x2 ** 3
    assert tape.watched_variables() == (x2,)
    assert tape.gradient(y, x1) is None
    assert tape.gradient(z, x2) == 3.0


def test_watched_variables_are_in_creation_order_not_access_order():
    a = tracer.Variable(1.0)
    b = tracer.Variable(2.0)
    c = tracer.Variable(3.0, trainable=False)
    with GradientTape() as tape:
        b + c + a
    assert tape.watched_variables() == (a, b)
    assert isinstance(tape.watched_variables(), tuple)


def test_watched_variables_is_empty_before_entering():
    assert GradientTape().watched_variables() == ()


def test_watched_variables_survive_a_non_persistent_gradient():
    x = tracer.Variable(2.0)
    with GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    assert tape.watched_variables() == (x,)


def test_integer_variables_are_watched_but_get_no_gradient():
    i = tracer.Variable(2)
    j = tracer.Variable(np.array([1, 2], dtype=np.int32))
    with GradientTape() as tape:
        y = i * j
    assert tape.watched_variables() == (i, j)
    assert tape.gradient(y, [i, j]) == [None, None]


# --- reads and assignments ------------------------------------------------------

def test_every_read_counts_towards_the_variable():
    v = tracer.Variable(2.0)
    with GradientTape() as tape:
        a = v * 1.0
        b = v * 1.0
        y = a * b
    assert tape.gradient(y, v) == 4.0


def test_reads_before_and_after_assign_both_count():
    v = tracer.Variable(2.0)
    with GradientTape() as tape:
        y1 = v * v
        v.assign(3.0)
        y2 = v * v
        total = y1 + y2
    assert tape.gradient(total, v) == 4.0 + 6.0


@pytest.mark.parametrize("method, argument, expected", [
    ("assign", 5.0, 5.0), ("assign_add", 5.0, 7.0), ("assign_sub", 0.5, 1.5)])
def test_assignments_are_not_differentiable(method, argument, expected):
    x = tracer.constant(argument)
    v = tracer.Variable(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        getattr(v, method)(x)
        y = v * v
    assert v.numpy() == expected
    assert tape.gradient(y, [x, v]) == [None, 2 * expected]


def test_a_value_assigned_from_a_watched_tensor_does_not_carry_its_gradient():
    x = tracer.constant(5.0)
    v = tracer.Variable(0.0)
    with GradientTape() as tape:
        tape.watch(x)
        v.assign(2.0 * x)
        y = v * v
    assert tape.gradient(y, [x, v]) == [None, 20.0]


def test_assign_keeps_the_variables_identity_shape_and_dtype():
    v = tracer.Variable(np.zeros(3, dtype=np.float32), name="v")
    same = v.assign([1, 2, 3])
    assert same is v
    assert v.dtype == np.float32
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3])
    with pytest.raises(ValueError, match=r"shape \(2,\).*shape \(3,\)"):
        v.assign([1.0, 2.0])


def test_training_loop_matches_hand_written_numpy_backprop():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(8, 3))
    labels = rng.normal(size=(8,))
    w = tracer.Variable(np.zeros(3), name="w")
    b = tracer.Variable(0.0, name="b")
    w_ref, b_ref = np.zeros(3), 0.0
    for _ in range(3):
        with GradientTape() as tape:
            loss = np.mean((data @ w + b - labels) ** 2)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * dw)
        b.assign_sub(0.1 * db)
        residual = data @ w_ref + b_ref - labels
        w_ref = w_ref - 0.1 * (2.0 / 8.0) * data.T @ residual
        b_ref = b_ref - 0.1 * (2.0 / 8.0) * residual.sum()
    np.testing.assert_allclose(w.numpy(), w_ref)
    np.testing.assert_allclose(b.numpy(), b_ref)
