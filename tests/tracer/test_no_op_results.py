"""A numpy function that changes nothing still gives a tensor, never the variable it was
given.

Many functions have a shortcut for the call that changes nothing (a reshape to
the same shape, a transpose by the identity, np.pad by nothing, np.copy).  On a
variable such a call reads it, as TensorFlow's functions read theirs: the
result is a tensor, a later ``assign`` leaves it as it was, and the gradient
reaches the variable.  On a tensor the call may give the tensor itself.
"""

import numpy as np
import pytest

import tracer

VECTOR = np.array([1.5, -0.5, 2.0])
MATRIX = np.array([[1.0, 2.0, -1.0], [0.5, -2.0, 3.0]])

NO_OPS = {
    "reshape": lambda v: np.reshape(v, v.shape),
    ".reshape": lambda v: v.reshape(v.shape),
    "reshape-minus-one": lambda v: np.reshape(v, (2, -1)),
    "expand_dims-none": lambda v: np.expand_dims(v, ()),
    "transpose-identity": lambda v: np.transpose(v, (0, 1)),
    ".transpose-identity": lambda v: v.transpose(0, 1),
    "moveaxis": lambda v: np.moveaxis(v, 0, 0),
    "swapaxes": lambda v: np.swapaxes(v, 1, 1),
    "rollaxis": lambda v: np.rollaxis(v, 0),
    "squeeze": np.squeeze,
    ".squeeze": lambda v: v.squeeze(),
    "astype": lambda v: np.astype(v, v.dtype),
    ".astype": lambda v: v.astype(v.dtype),
    "broadcast_to": lambda v: np.broadcast_to(v, v.shape),
    "atleast_1d": np.atleast_1d,
    "atleast_2d": np.atleast_2d,
    "copy": np.copy,
    ".copy": lambda v: v.copy(),
    "concatenate-one": lambda v: np.concatenate([v]),
    "stack-one": lambda v: np.stack([v])[0],
    "pad-nothing": lambda v: np.pad(v, 0),
    "pad-nothing-reflect": lambda v: np.pad(v, 0, mode="reflect"),
    "tile-once": lambda v: np.tile(v, 1),
    "repeat-once": lambda v: np.repeat(v, 1, axis=0),
    "roll-nothing": lambda v: np.roll(v, 0),
    "roll-round": lambda v: np.roll(v, 3, axis=1),
    "rot90-full-turn": lambda v: np.rot90(v, 4),
    "flip-no-axes": lambda v: np.flip(v, ()),
    "diff-zero": lambda v: np.diff(v, 0),
    "real": np.real,
    ".real": lambda v: v.real,
    "real_if_close": np.real_if_close,
    "nan_to_num": np.nan_to_num,
    "einsum-identity": lambda v: np.einsum("ij->ij", v),
    ".to_device": lambda v: v.to_device("cpu"),
}
"""Calls on a 2x3 float matrix that give back a value equal to their argument."""

VECTOR_NO_OPS = {
    "ravel": np.ravel,
    ".ravel": lambda v: v.ravel(),
    ".flatten": lambda v: v.flatten(),
    ".T": lambda v: v.T,
    "split-one": lambda v: np.split(v, 1)[0],
    "hstack-one": lambda v: np.hstack([v]),
}
"""Calls on a float vector that give back a value equal to their argument."""

SEVERAL = {
    "atleast_1d-two": lambda v: np.atleast_1d(v, v),
    "atleast_2d-two": lambda v: np.atleast_2d(v, v),
}
"""Calls on a 2x3 matrix that give back a tuple or list of values equal to their argument."""

CALLS = ([pytest.param(f, MATRIX, id=k) for k, f in NO_OPS.items()]
         + [pytest.param(f, VECTOR, id=k) for k, f in VECTOR_NO_OPS.items()])


def _results(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _check_reads(call, value):
    """``call`` on a variable of ``value``: tensors equal to it that stay so after an
    assignment, whose gradient is ones on the variable."""
    v = tracer.Variable(value)
    with tracer.GradientTape() as tape:
        out = call(v)
    results = _results(out)
    for result in results:
        assert type(result) is tracer.Tensor, type(result)
        np.testing.assert_array_equal(result.numpy(), value)
    v.assign(value + 10.0)
    for result in results:
        np.testing.assert_array_equal(result.numpy(), value)
    gradient = tape.gradient(results, v)
    np.testing.assert_array_equal(gradient.numpy(), np.full(value.shape, float(len(results))))


@pytest.mark.parametrize("call, value", CALLS)
def test_a_call_that_changes_nothing_reads_the_variable(call, value):
    _check_reads(call, value)


@pytest.mark.parametrize("call", SEVERAL.values(), ids=SEVERAL.keys())
def test_each_result_of_a_call_that_changes_nothing_reads_the_variable(call):
    _check_reads(call, MATRIX)


@pytest.mark.parametrize("call, value", CALLS)
def test_on_a_tensor_a_call_that_changes_nothing_keeps_value_and_gradient(call, value):
    x = tracer.constant(value)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = call(x)
    assert isinstance(out, tracer.Tensor)
    np.testing.assert_array_equal(out.numpy(), value)
    np.testing.assert_array_equal(tape.gradient(out, x).numpy(), np.ones(value.shape))


def test_a_no_op_result_is_the_value_before_an_assignment_in_the_tape():
    """Both versions count towards the gradient, as any two reads of a variable do."""
    v = tracer.Variable(MATRIX)
    with tracer.GradientTape() as tape:
        before = np.moveaxis(v, 0, 0)
        v.assign(MATRIX * 3.0)
        out = np.sum(before * v)
    np.testing.assert_allclose(out.numpy(), np.sum(MATRIX * MATRIX * 3.0))
    np.testing.assert_allclose(tape.gradient(out, v).numpy(), MATRIX * 3.0 + MATRIX)
