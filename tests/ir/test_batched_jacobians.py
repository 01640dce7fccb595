"""Vectorised Jacobians over the whole gradient table, in reverse and forward mode.

``tape.jacobian`` runs one backward walk over a batch of one-hot seeds
(``ir.autodiff.batching``): every VJP rule meets a batched cotangent.  For every case
it must equal the Jacobian built one row at a time from ``tape.gradient``
(which the table checks against finite differences), and so must a Hessian
taken while an outer tape records, where the batched rules run on tensors.
"""

import numpy as np
import pytest

import tracer
from gradient_table import rows

CASES = [pytest.param(case, id=case.id) for case in rows()]


def _row_by_row(tape, out, tensors):
    size = int(np.prod(out.shape, dtype=np.int64))
    rows = []
    for k in range(size):
        seed = np.zeros(size, out.dtype)
        seed[k] = 1
        rows.append(tape.gradient(out, tensors, output_gradients=seed.reshape(out.shape)))
    expected = []
    for j, t in enumerate(tensors):
        column = [np.zeros(t.shape, t.dtype) if row[j] is None else row[j].numpy()
                  for row in rows]
        expected.append(np.reshape(np.stack(column), out.shape + t.shape) if size
                        else np.zeros(out.shape + t.shape, t.dtype))
    return expected


@pytest.mark.parametrize("case", CASES)
def test_one_walk_gives_the_jacobian_row_by_row_gives(case):
    tensors = [tracer.constant(a) for a in case.arrays()]
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        out = case.fn(*tensors)
    jacobians = tape.jacobian(out, tensors,
                              unconnected_gradients=tracer.UnconnectedGradients.ZERO)
    for jacobian, expected in zip(jacobians, _row_by_row(tape, out, tensors)):
        assert jacobian.shape == expected.shape and jacobian.dtype == expected.dtype
        np.testing.assert_allclose(jacobian.numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_batched_rules_record_on_an_outer_tape(case):
    """The Jacobian of a first derivative, its rows batched while an outer tape records."""
    tensors = [tracer.constant(a) for a in case.arrays()]
    rng = np.random.default_rng(3)
    with tracer.GradientTape(persistent=True) as outer:
        outer.watch(tensors)
        with tracer.GradientTape() as inner:
            inner.watch(tensors)
            out = case.fn(*tensors)
        u = rng.standard_normal(out.shape).astype(out.dtype)
        first = inner.gradient(out, tensors[0], output_gradients=u)
    if first is None:
        return
    jacobian = outer.jacobian(first, tensors[0],
                              unconnected_gradients=tracer.UnconnectedGradients.ZERO)
    (expected,) = _row_by_row(outer, first, tensors[:1])
    np.testing.assert_allclose(jacobian.numpy(), expected, rtol=1e-9, atol=1e-12)


def _real(case):
    arrays = case.arrays()
    out = case.fn(*(tracer.constant(a) for a in arrays))
    return not np.iscomplexobj(out.numpy()) and not any(np.iscomplexobj(a) for a in arrays)


REAL_CASES = [pytest.param(case, id=case.id) for case in rows() if _real(case)]
"""Cases with real inputs and outputs: with complex ones, TensorFlow's reverse-mode
Jacobian (the gradient of each output in its convention) is not the forward one."""


@pytest.mark.parametrize("case", REAL_CASES)
def test_forward_mode_over_a_batch_of_tangents_gives_the_same_jacobian(case):
    arrays = case.arrays()
    forward = tracer.jacobian(case.fn, argnums=tuple(range(len(arrays))), mode="forward")
    reverse = tracer.jacobian(case.fn, argnums=tuple(range(len(arrays))))
    for f, r in zip(forward(*arrays), reverse(*arrays)):
        assert f.shape == r.shape
        np.testing.assert_allclose(np.asarray(f), np.asarray(r), rtol=1e-10, atol=1e-12)
