"""Every row of the gradient table on zero-size inputs, against numpy.

Each row's non-scalar inputs get a zero-size axis: the first axis of every
one, the last axis of every one, or (where numpy accepts neither) one axis
of one input.  On each variant numpy accepts, tapegen computes numpy's value,
shape and dtype, and the eager gradient of the output (seeded with ones) has
each source's shape and dtype, zeros where the output is empty.  Where numpy
raises, tapegen raises the same kind of error.  ``DIFFERS`` lists, with
reasons, the variants where tapegen refuses what numpy computes.
"""

import numpy as np
import pytest

import tracer
from gradient_table import rows

DIFFERS = {
    ("einsum-ii->i", "first"): "numpy reads the diagonal of a 0x3 operand as three elements "
                               "(a repeated letter's sizes go unchecked when one is 0); "
                               "tapegen refuses it as numpy refuses a 2x3 one",
    ("einsum-iij->ji", "first"): "the same, for a 0x3x2 operand",
    ("einsum-bii->bi", "input0-axis1"): "the same, for a 2x0x3 operand",
    ("linalg.svd-square", "first"): "the matrix is no longer square: tapegen refuses "
                                    "full_matrices=True there, whose extra vectors have "
                                    "no derivative",
    ("linalg.svd-square", "last"): "the same",
}
"""``(row id, variant)`` where numpy computes a value and tapegen raises, with why."""

NUMPY_FAILS = {
    ("percentile", "input0-axis1"): "numpy fails reshaping its sorted data when a kept "
                                    "axis is empty; tapegen gives the empty result",
}
"""``(row id, variant)`` where numpy raises from within and tapegen gives an empty result."""

ZEROS = {
    "fft.irfft": "numpy's inverse real transforms of an empty axis, zero-padded to the "
                 "length asked for, leave their results uninitialised; tapegen gives the "
                 "transform of zeros, zeros",
}
"""Rows (by their id's start) whose zero-size values numpy leaves undefined: tapegen's
must be zeros of numpy's shape and dtype."""

CASES = [pytest.param(case, id=case.id) for case in rows()
         if any(np.ndim(a) for a in case.arrays())]


def _emptied(array, axis):
    if np.ndim(array) == 0:
        return array
    shape = list(np.shape(array))
    shape[axis] = 0
    return np.zeros(shape, array.dtype)


def _variants(arrays):
    """``(name, arrays)`` of the zero-size variants to try, in order, each once."""
    candidates = [("first", [_emptied(a, 0) for a in arrays]),
                  ("last", [_emptied(a, -1) for a in arrays])]
    for k, array in enumerate(arrays):
        for axis in range(np.ndim(array)):
            candidates.append((f"input{k}-axis{axis}",
                               arrays[:k] + [_emptied(array, axis)] + arrays[k + 1:]))
    seen = set()
    for name, variant in candidates:
        shapes = tuple(np.shape(a) for a in variant)
        if shapes not in seen:
            seen.add(shapes)
            yield name, variant


def _builtin_error(error):
    """The builtin exception class an error is (numpy raises private subclasses)."""
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


def _check_variant(case, name, arrays):
    """Whether numpy accepts the variant; tapegen must agree with it either way."""
    tensors = [tracer.constant(a) for a in arrays]
    try:
        expected = case.fn(*arrays)
    except Exception as error:
        if (case.id, name) in NUMPY_FAILS:
            assert case.fn(*tensors).size == 0
            return True
        with pytest.raises(_builtin_error(error)):
            case.fn(*tensors)
        return False
    if (case.id, name) in DIFFERS:
        with pytest.raises((TypeError, ValueError)):
            case.fn(*tensors)
        return True
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        out = case.fn(*tensors)
    expected = np.asarray(expected)
    assert (out.shape, out.dtype) == (expected.shape, expected.dtype), name
    if case.id.startswith(tuple(ZEROS)):
        np.testing.assert_array_equal(out.numpy(), 0.0)
    else:
        np.testing.assert_allclose(out.numpy(), expected, err_msg=name)
    if out.dtype.kind not in "fc":
        return True
    gradients = tape.gradient(out, tensors, output_gradients=np.ones(out.shape, out.dtype))
    for gradient, array in zip(gradients, arrays):
        if gradient is None:
            continue
        assert (gradient.shape, gradient.dtype) == (array.shape, array.dtype), name
        if out.size == 0:
            assert not gradient.numpy().any(), name
    return True


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the means of nothing, as numpy
@pytest.mark.parametrize("case", CASES)
def test_zero_size_inputs_compute_and_differentiate_as_numpy(case):
    """The first and last variants always, then single-input ones until numpy has
    accepted two variants (numpy raises on every variant of some rows: max of nothing)."""
    accepted = 0
    with np.errstate(all="ignore"):
        for name, arrays in _variants(case.arrays()):
            if name not in ("first", "last") and accepted >= 2:
                break
            accepted += _check_variant(case, name, arrays)


def test_every_listed_difference_is_of_a_row():
    ids = {case.id for case in rows()}
    assert {row for row, _ in DIFFERS} | {row for row, _ in NUMPY_FAILS} <= ids
    assert all(any(i.startswith(start) for i in ids) for start in ZEROS)
