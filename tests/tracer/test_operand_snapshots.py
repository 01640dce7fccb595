"""A recorded operation's operands are the values they had when it ran.

TensorFlow converts a numpy operand to a tensor (a copy) at the operation, so
changing the array in place afterwards changes nothing the tape computes.
tapegen's records keep copies of plain arrays for the same reason.  Every
kind of in-place change is tried, on small arrays and on arrays large enough
to be copied into recycled memory, and the gradient is checked eagerly, in the
recorded graph's constants, and in generated code.
"""

import numpy as np
import pytest

import codegen
import tracer
from tracer import buffers

SMALL = (3,)
LARGE = (buffers.MIN_BYTES // 8 + 5,)  # float64 values: the copy is made in a pooled slab


def _in_place_changes():
    """Ways to change a plain array in place after an operation read it."""
    def fill_ellipsis(x):
        x[...] = -1.0

    def scale(x):
        x *= 3.0

    def copy_into(x):
        np.copyto(x, np.arange(x.size, dtype=x.dtype).reshape(x.shape))

    def fill(x):
        x.fill(0.0)

    def through_a_view(x):
        x.reshape(-1)[::2] = 7.0

    return [fill_ellipsis, scale, copy_into, fill, through_a_view]


CHANGES = _in_place_changes()


def _record(W, X):
    with tracer.GradientTape(persistent=True) as tape:
        y = np.sum(np.tanh(W * X))
    return tape, y


def _expected_gradient(W, X):
    return X * (1.0 - np.tanh(W * X) ** 2)


@pytest.mark.parametrize("shape", [SMALL, LARGE], ids=["small", "large"])
@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.__name__)
def test_changing_an_operand_in_place_after_the_operation_changes_no_gradient(change, shape):
    rng = np.random.default_rng(0)
    W = tracer.Variable(rng.uniform(-1, 1, shape), name="W")
    X = rng.uniform(-1, 1, shape)
    seen = X.copy()
    expected = _expected_gradient(W.numpy(), X)
    tape, y = _record(W, X)
    change(X)
    assert not np.array_equal(X, seen)

    np.testing.assert_allclose(tape.gradient(y, W).numpy(), expected, rtol=1e-12)
    (constant,) = [node.value for node in tape.graph if node.kind == "constant"
                   and np.shape(node.value) == shape]
    assert not np.shares_memory(constant, X)
    if shape == SMALL:
        module = codegen.load(codegen.gradient_source(tape, y, W))
        np.testing.assert_allclose(module.gradient(W.numpy()), expected, rtol=1e-12)


def test_a_buffer_refilled_at_each_step_of_a_recorded_loop():
    rng = np.random.default_rng(1)
    data = rng.normal(size=(4, 3))
    W = tracer.Variable(rng.normal(size=3), name="W")
    buffer = np.empty(3)
    with tracer.GradientTape(persistent=True) as tape:
        y = 0.0
        for row in data:
            buffer[:] = row
            y = y + np.sum(np.tanh(W * buffer))
    expected = sum(_expected_gradient(W.numpy(), row) for row in data)

    np.testing.assert_allclose(tape.gradient(y, W).numpy(), expected, rtol=1e-12)
    module = codegen.load(codegen.gradient_source(tape, y, W))
    np.testing.assert_allclose(module.gradient(W.numpy()), expected, rtol=1e-12)


def test_a_large_buffer_refilled_in_a_loop_of_recordings_keeps_each_steps_values():
    rng = np.random.default_rng(2)
    W = tracer.Variable(rng.normal(size=LARGE), name="W")
    buffer = np.empty(LARGE)
    for step in range(3):
        buffer[:] = rng.normal(size=LARGE)
        seen = buffer.copy()
        with tracer.GradientTape() as tape:
            y = np.sum(W * buffer) + np.sum(buffer * W * W)
        buffer[:] = 0.0
        np.testing.assert_allclose(tape.gradient(y, W).numpy(), seen + 2 * seen * W.numpy())


def test_operands_that_are_views_of_a_changed_array():
    rng = np.random.default_rng(3)
    W = tracer.Variable(rng.normal(size=(2, 3)), name="W")
    base = rng.normal(size=(4, 3))
    row, column = base[1], base[:, :1]
    seen_row, seen_column = row.copy(), column.copy()
    with tracer.GradientTape() as tape:
        y = np.sum(W * row) + np.sum(W[:, :1] * column[:2])
    base[:] = 0.0
    expected = np.broadcast_to(seen_row, (2, 3)).copy()
    expected[:, 0] += seen_column[:2, 0]
    np.testing.assert_allclose(tape.gradient(y, W).numpy(), expected)


def _windows(row):
    return np.lib.stride_tricks.sliding_window_view(row, 1000)[::-1]


@pytest.mark.parametrize("view", [lambda row: np.broadcast_to(row, (1000, 1000)), _windows],
                         ids=["broadcast", "sliding-windows-reversed"])
def test_an_overlapping_view_is_copied_at_the_size_of_its_memory(view):
    W = tracer.Variable(np.ones((1000, 1000)), name="W")
    row = np.arange(1999.0)[:1000] if view is not _windows else np.arange(1999.0)
    wide = view(row)
    expected = wide.copy()
    with tracer.GradientTape(persistent=True) as tape:
        y = np.sum(W * wide)
    row[:] = 0.0
    np.testing.assert_array_equal(tape.gradient(y, W).numpy(), expected)
    (kept,) = [a for r in tape._recording.records for a in r.args if isinstance(a, np.ndarray)]
    low, high = np.lib.array_utils.byte_bounds(kept)
    assert kept.shape == (1000, 1000) and high - low == row.nbytes
    assert not np.shares_memory(kept, row)


def test_a_list_of_tensors_as_an_operand_is_stacked_as_in_tensorflow():
    x = tracer.constant([1.0, 2.0, 3.0])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * [x[0], 2.0 * x[1], x[2]])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 8.0, 6.0])


def test_a_list_operand_changed_after_the_operation():
    x = tracer.constant([1.0, 2.0, 3.0])
    mask = [True, False, True]
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sum(np.where(mask, x * x, 0.0))
    mask[1] = True
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 0.0, 6.0])
    module = codegen.load(codegen.gradient_source(tape, y, x))
    np.testing.assert_allclose(module.gradient(x.numpy()), [2.0, 0.0, 6.0])


def test_index_arrays_changed_after_indexing():
    x = tracer.constant([1.0, 2.0, 3.0, 4.0])
    index = np.array([0, 0, 3])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x[index] ** 2)
    index[:] = 1
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [4.0, 0.0, 0.0, 8.0])


def test_a_changed_operand_leaves_higher_order_gradients_alone():
    x = tracer.constant([0.5, -1.0])
    scale = np.array([2.0, 3.0])
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            y = np.sum(np.sin(x * scale))
        g = inner.gradient(y, x)
        scale[:] = 0.0
    hessian_diagonal = -np.array([4.0, 9.0]) * np.sin(x.numpy() * [2.0, 3.0])
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), hessian_diagonal)


def test_output_gradients_changed_after_a_recorded_gradient():
    x = tracer.constant([0.5, -1.0])
    upstream = np.array([1.0, 2.0])
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3
        g = inner.gradient(y, x, output_gradients=upstream)
    upstream[:] = 0.0
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), 6.0 * x.numpy() * [1.0, 2.0])


def test_an_array_a_custom_gradient_function_returns_is_copied():
    kept = {}

    @tracer.custom_gradient
    def doubled(a):
        kept["value"] = 2.0 * np.asarray(a.numpy())
        return kept["value"], lambda g: 2.0 * g

    x = tracer.constant([1.0, 2.0])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = doubled(x)
        kept["value"][:] = 0.0
        z = np.sum(y * y)
    np.testing.assert_allclose(y.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), [8.0, 16.0])
