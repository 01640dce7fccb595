"""The gradient table of the ir tests, through generated code.

Each row of ``tests/ir/test_primitive_gradients.py`` is recorded on a tape,
written out as a gradient module with ``seed_argument=True``, loaded and
called; its vector-Jacobian products must equal the eager tape's for the
same upstream gradient, dtype for dtype and ``None`` for ``None``.  The
eager gradients are checked against finite differences by the ir tests, so
this ties generated code to them.

First and second order (an outer tape recording the inner gradient) run
with and without the optimisation passes, float32 rows at both orders.  Every first-order module must also free each intermediate
right after its last use and, optimised, never broadcast an operand an
elementwise operation would broadcast itself.  Arrays a case captures are
written inline here, whatever their size, so every case is called with its
tensors alone; the contract tests cover captured arrays as parameters.
"""

import numpy as np
import pytest

import codegen.module
import tracer
from codegen_support import (assert_gradients_equal,
                             assert_no_broadcast_into_elementwise,
                             assert_released_after_last_use, call, generate, named_tensors,
                             recorded)
from gradient_table import float32_rows, rows

CASES = [pytest.param(case, id=case.id) for case in rows()]
FLOAT32_CASES = [pytest.param(case, id=case.id) for case in float32_rows()]


@pytest.fixture(autouse=True)
def inline_captured_arrays(monkeypatch):
    monkeypatch.setattr(codegen.module, "INLINE_CONSTANT_SIZE", np.inf)


def _first_order(case, dtype, optimize, arrays=None):
    arrays = case.arrays(dtype) if arrays is None else arrays
    tensors = named_tensors(arrays)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        out = case.fn(*tensors)
    source = codegen.gradient_source(tape, out, tensors, seed_argument=True, optimize=optimize)
    seed = np.random.default_rng(1).standard_normal(out.shape).astype(out.dtype)
    values = {t.name: a for t, a in zip(tensors, arrays)}
    generated = call(codegen.load(source), values, seed)
    eager = tape.gradient(out, tensors, output_gradients=tracer.constant(seed))
    assert_gradients_equal(generated, eager)
    assert_released_after_last_use(source)
    if optimize:
        assert_no_broadcast_into_elementwise(source)


def _second_order(case, dtype, optimize=True):
    arrays = case.arrays(dtype)
    tensors = named_tensors(arrays)
    rng = np.random.default_rng(2)
    with tracer.GradientTape(persistent=True) as outer:
        outer.watch(tensors)
        with tracer.GradientTape() as inner:
            inner.watch(tensors)
            out = case.fn(*tensors)
        upstream = tracer.constant(rng.standard_normal(out.shape).astype(dtype), name="u")
        outer.watch(upstream)
        first = inner.gradient(out, tensors, output_gradients=upstream)
    targets = [g for g in first if g is not None and recorded(outer, g)]
    if not targets:
        # A linear function: its gradient is a constant, with no derivative of its own.
        constants = [g for g in first if g is not None]
        assert all(g is None for g in outer.gradient(constants, tensors))
        return
    seeds = [rng.standard_normal(t.shape).astype(t.dtype) for t in targets]
    values = {t.name: a for t, a in zip(tensors, arrays)}
    values["u"] = upstream.numpy()
    module = generate(outer, targets, tensors, seed_argument=True, optimize=optimize)
    generated = call(module, values, seeds)
    assert_gradients_equal(generated, outer.gradient(targets, tensors, output_gradients=seeds))


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "raw"])
@pytest.mark.parametrize("case", CASES)
def test_first_order_matches_eager(case, optimize):
    _first_order(case, np.float64, optimize)


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "raw"])
@pytest.mark.parametrize("case", CASES)
def test_second_order_matches_eager(case, optimize):
    _second_order(case, np.float64, optimize)


@pytest.mark.parametrize("case", FLOAT32_CASES)
def test_float32_stays_float32_to_second_order(case):
    _first_order(case, np.float32, optimize=True)
    _second_order(case, np.float32)


ZERO_SIZE_ROWS = ["einsum-...ij,...jk->...ik", "sum-2x3x4-axis1-keepFalse",
                  "var-2x3x4-axis(0, 2)-keepTrue", "complex.var-axis-ddof",
                  "linalg.norm-vector-ordinf", "linalg.norm-matrix-ord1", "median-axis",
                  "concatenate", "sign-2x3", "cumsum", "linalg.inv-2x3x3",
                  "prod-2x3x4-axis1-keepTrue"]
"""A sample of rows whose inputs numpy accepts with their first axis emptied (the ir
tests sweep every row eagerly)."""


def test_the_zero_size_sample_names_rows():
    assert set(ZERO_SIZE_ROWS) <= {case.id for case in rows()}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the means of nothing, as numpy
@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "raw"])
@pytest.mark.parametrize("case", [pytest.param(case, id=case.id) for case in rows()
                                  if case.id in ZERO_SIZE_ROWS])
def test_zero_size_inputs_match_eager(case, optimize):
    arrays = [a if np.ndim(a) == 0 else np.zeros((0,) + np.shape(a)[1:], a.dtype)
              for a in case.arrays()]
    with np.errstate(all="ignore"):
        _first_order(case, np.float64, optimize, arrays)
