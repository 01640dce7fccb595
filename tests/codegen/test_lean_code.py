"""Generated code does no more work and holds no more memory than it must.

Structural checks, not timings: matrix adjoints are transposed products
(``x.T @ d_z``, views, no ``tensordot`` or ``einsum``), the optimiser folds
seeds of ones and constant factors away while ``optimize=False`` keeps the
adjoint as the rules built it, values are deleted right after their last
use, and nothing is copied where numpy gives a view.
"""

import ast

import numpy as np
import pytest

import codegen
import golden_models
import tracer
from codegen_support import (assert_no_broadcast_into_elementwise,
                             assert_released_after_last_use, calls_to, function_def,
                             named_tensors)
from gradient_table import rows

MATRIX_PRODUCTS = [pytest.param(case, id=case.id) for case in rows()
                   if case.id in {"matmul-2x3-3x4", "@-2x3-3x4", "dot-2x3-3x4", ".dot-2x3-3x4"}]


def _first_order_source(case, seed_argument=True, optimize=True):
    tensors = named_tensors(case.arrays())
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        out = case.fn(*tensors)
    return codegen.gradient_source(tape, out, tensors, seed_argument=seed_argument,
                                   optimize=optimize)


@pytest.mark.parametrize("case", MATRIX_PRODUCTS)
def test_matrix_adjoints_are_transposed_products(case):
    source = _first_order_source(case)
    body = function_def(source)
    lines = [line.strip() for line in source.splitlines()]
    assert "d_x0 = seed @ x1.T" in lines and "d_x1 = x0.T @ seed" in lines
    assert "tensordot" not in source and "einsum" not in source
    assert len(body.body) == 4


def test_the_dense_layer_reads_like_handwritten_numpy():
    tape, loss, sources, _ = golden_models.record_dense_layer()
    source = codegen.gradient_source(tape, loss, sources, name="loss_grad")
    lines = [line.strip() for line in source.splitlines()]
    for expected in ["d_z = d_err * (1 - h * h)", "d_W = x.T @ d_z", "d_b = d_z.sum(axis=0)"]:
        assert expected in lines
    assert not calls_to(source, "np.broadcast_to")
    assert len(calls_to(source, "np.tanh")) == 1, "the adjoint of tanh reuses the forward's h"
    assert_released_after_last_use(source, "loss_grad")


def test_a_scalar_seed_is_not_spread_before_it_is_scaled():
    tape, loss, sources, _ = golden_models.record_dense_layer()
    source = codegen.gradient_source(tape, loss, sources, seed_argument=True)
    assert_no_broadcast_into_elementwise(source)


def test_raw_adjoints_keep_what_the_optimiser_removes():
    (case,) = [c for c in rows() if c.id == "mean-2x3x4-axis1-keepFalse"]
    raw = _first_order_source(case, seed_argument=False, optimize=False)
    optimized = _first_order_source(case, seed_argument=False)
    assert "# the target's gradient with respect to itself" in raw
    assert "np.broadcast_to(np.float64(1.0), (2, 4))" in raw
    assert "return [np.full((2, 3, 4), 1 / 3)]" in optimized


def test_second_order_code_is_freed_as_it_goes():
    tape, gradient, w, _ = golden_models.record_hessian_vector_product()
    source = codegen.gradient_source(tape, gradient, w, name="hvp", seed_argument=True)
    assert_released_after_last_use(source, "hvp")
    raw = codegen.gradient_source(tape, gradient, w, name="hvp", optimize=False)
    assert_released_after_last_use(raw, "hvp")


COPIES = ("np.copy", "np.ascontiguousarray", "np.array", "np.asarray")
VIEW_ROWS = {"transpose", ".T", "swapaxes", "moveaxis", "reshape", "expand_dims", "squeeze",
             "broadcast_to", "getitem"}


def test_nothing_is_copied_where_a_view_serves():
    """Rearranging axes and slicing are views in numpy, forward and adjoint; only
    literals (``np.array([...])``) may be built from scratch."""
    for case in rows():
        if case.id.split("-")[0] not in VIEW_ROWS:
            continue
        source = _first_order_source(case)
        copies = [ast.unparse(call) for name in COPIES
                  for call, _ in calls_to(source, name, within="gradient")
                  if not isinstance(call.args[0], (ast.List, ast.Constant))]
        assert not copies and ".copy()" not in source, case.id


def test_a_long_expression_on_one_line_becomes_several_statements():
    x = tracer.constant(np.linspace(0.1, 1.0, 4), name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sum(sum(np.sin(x * (k + 1.0)) for k in range(300)))
    source = codegen.gradient_source(tape, y, x)
    module = codegen.load(source)
    np.testing.assert_allclose(module.gradient(x.numpy()), tape.gradient(y, x).numpy())
    assert max(len(line) for line in source.splitlines()) <= 100


def test_a_reshape_is_the_method_on_arrays_and_the_function_on_what_may_be_a_number():
    """``x.reshape(shape)`` costs a fifth of ``np.reshape(x, shape)``; a value of one
    dimension or more is an ndarray in generated code, while a 0-d parameter may be
    passed as a Python number, which has no ``reshape`` method."""
    x = tracer.constant(np.array([1.0, 2.0, 3.0, 4.0]), name="x")
    s = tracer.constant(2.0, name="s")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([x, s])
        square = np.reshape(x + 1.0, (2, 2)) @ np.reshape(x, (2, 2))
        out = np.sum(square * np.reshape(s * s, (1, 1))) + np.sum(np.reshape(s, (1,)) * x)
    expected = [g.numpy() for g in tape.gradient(out, [x, s])]
    for optimize in (True, False):
        source = codegen.gradient_source(tape, out, [x, s], optimize=optimize)
        functions = [call.args[0] for call, _ in calls_to(source, "np.reshape", within="gradient")]
        assert all(ast.unparse(f) in {"s * s", "s", "np.float64(1.0)"} for f in functions)
        assert "(x + 1.0).reshape((2, 2))" in source and "x.reshape((2, 2))" in source
        assert optimize or "np.reshape(s * s, (1, 1))" in source  # (the optimiser drops it)
        module = codegen.load(source)
        for scale in (2.0, np.float64(2.0), np.array(2.0)):
            for got, want in zip(module.gradient(x.numpy(), scale), expected):
                np.testing.assert_allclose(got, want, rtol=1e-12)


def test_numpy_scalars_are_python_numbers_where_they_compute_the_same():
    """A numpy scalar in an expression is built at every call; a Python number is not.
    The scale factors of Rosenbrock's gradient and a recorded ``np.float64(3.0)`` are
    written as Python floats, while a float64 constant that a float32 array is
    compared with stays one, as numpy compares in float64 with it."""
    x = tracer.constant(np.linspace(-1.0, 1.0, 6), name="x")
    x32 = tracer.constant(np.array([0.1, 0.2, 0.05], dtype=np.float32), name="x32")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([x, x32])
        rosenbrock = np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
        scaled = np.sum(np.sin(x * np.float64(3.0)))
        picked = np.sum(np.where(x32 <= np.asarray(0.1), x32 * x32, x32))
    for target, source in [(rosenbrock, x), (scaled, x), (picked, x32)]:
        expected = tape.gradient(target, source).numpy()
        for optimize in (True, False):
            text = codegen.gradient_source(tape, target, source, optimize=optimize)
            module = codegen.load(text)
            np.testing.assert_allclose(module.gradient(source.numpy()), expected, rtol=1e-12)
        text = codegen.gradient_source(tape, target, source)
        strong = [ast.unparse(call) for call, _ in calls_to(text, "np.float64", "gradient")]
        assert strong == (["np.float64(0.1)"] if target is picked else []), text
    assert "x32 <= np.float64(0.1)" in codegen.gradient_source(tape, picked, x32)
    assert "x * 3.0" in codegen.gradient_source(tape, scaled, x)
