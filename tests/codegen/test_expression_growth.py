"""Expression growth of generated higher derivatives, counted in the generated code.

For ``f(s) = sum(tanh(W @ (s * v)))`` with ``W`` 4x3, the k-th derivative
from k nested tapes must stay within the operation counts JAX reaches after
its own dead-code pass (13, 24, 44, 86 for k = 1..4), and grow linearly, not
exponentially, up to k = 8.  Operations are
counted in the generated function: calls, operators and indexing, not
literals, parameters, the argument check or ``del``.
"""

import ast

import numpy as np
import pytest

import codegen
import ir
from nested_tapes import kth_derivative

BOUNDS = {1: 13, 2: 24, 3: 44, 4: 86}
LITERALS = {"array", "float64", "float32", "int64", "complex128"}


def operation_count(source, name):
    """Primitive operations in function ``name`` of generated ``source``."""
    function = next(node for node in ast.parse(source).body
                    if isinstance(node, ast.FunctionDef) and node.name == name)
    count = 0
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            callee = node.func
            if isinstance(callee, ast.Name) and callee.id == "_check_inputs":
                continue
            if isinstance(callee, ast.Attribute) and callee.attr in LITERALS:
                continue
            count += 1
        elif isinstance(node, (ast.BinOp, ast.Subscript, ast.Compare)):
            count += 1
        elif isinstance(node, ast.UnaryOp) and not isinstance(node.operand, ast.Constant):
            count += 1
    return count


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(1)
    return rng.normal(size=(4, 3)), rng.normal(size=3)


@pytest.mark.filterwarnings("ignore::tracer.GradientTapeWarning")
@pytest.mark.parametrize("s_shape", [(), (3,)], ids=["scalar", "vector"])
def test_generated_derivatives_stay_within_the_bounds(problem, s_shape):
    W, v = problem
    s0 = np.random.default_rng(2).normal(size=s_shape)
    counts = {}
    for k, bound in BOUNDS.items():
        tape, y, s = kth_derivative(k, s0, v, W)
        source = codegen.gradient_source(tape, y, s, name="derivative")
        counts[k] = operation_count(source, "derivative")
        assert counts[k] <= bound, f"order {k}: {counts[k]} operations (bound {bound})"
        np.testing.assert_allclose(codegen.load(source).derivative(s0),
                                   tape.gradient(y, s).numpy(), rtol=1e-10, atol=1e-12)
    # Each order adds a bounded number of operations: the derivatives of tanh are
    # polynomials in tanh, which the passes lay out in Horner form.
    for k in range(5, 9):
        tape, y, s = kth_derivative(k, s0, v, W)
        source = codegen.gradient_source(tape, y, s, name="derivative")
        counts[k] = operation_count(source, "derivative")
        np.testing.assert_allclose(codegen.load(source).derivative(s0),
                                   tape.gradient(y, s).numpy(), rtol=1e-9, atol=1e-9)
    steps = [counts[k + 1] - counts[k] for k in range(1, 8)]
    assert max(steps) <= 3, counts


@pytest.mark.filterwarnings("ignore::tracer.GradientTapeWarning")
def test_the_summary_reports_counts_before_and_after_the_passes(problem):
    W, v = problem
    tape, y, s = kth_derivative(3, 0.3, v, W)
    graph = tape.graph
    target = [n.id for n in graph if n.kind == "op"][-1]
    adjoint = ir.adjoint(graph, [target], [n.id for n in graph if n.kind == "input"])
    optimized = ir.optimize(adjoint)
    text = str(optimized.summary())
    before, after = optimized.stats["ops_before"], optimized.stats["ops_after"]
    assert f"optimisation: {before} -> {after} ops" in text and after < before
