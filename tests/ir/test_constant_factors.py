"""Constant factors move out of products of scaled values and out of linear reductions
(``ir.optimize.factors``), where ``simplify`` folds them into one or they scale fewer elements.

On hand-built graphs, then on the Rosenbrock function and a softmax
cross-entropy: against the graph before (up to rounding), the eager tape and
finite differences.
"""

import numpy as np
import pytest

import codegen
import tracer
from generated_gradients import assert_generated_gradients_match
from ir.optimize.factors import move_constant_factors
from ir.optimize.passes import optimize
from test_passes import Build, assert_compact, assert_same_values, ops


def constants(graph):
    return [n.value for n in graph if n.kind == "constant"]


def test_two_scaled_factors_multiply_once_and_their_constants_fold():
    b = Build()
    a, c = b.input((4,)), b.input((4,))
    left = b.op("multiply", a, b.constant(np.float64(-200.0)))
    right = b.op("multiply", b.constant(2), c)
    graph = b.returning(b.op("multiply", left, right))
    result = move_constant_factors(graph)
    assert result.stats["move_constant_factors"] == 1
    assert_compact(result)
    optimized = optimize(graph)
    assert ops(optimized) == ["multiply", "multiply"]
    assert constants(optimized) == [-400.0]
    assert_same_values(graph, optimized)


def test_divisions_and_negations_are_factors_too():
    b = Build()
    a, c = b.input((4,)), b.input((4,))
    graph = b.returning(b.op("multiply", b.op("divide", a, b.constant(3.0)),
                             b.op("negative", c)))
    optimized = optimize(graph)
    assert ops(optimized) == ["multiply", "divide"] and constants(optimized) == [-3.0]
    assert_same_values(graph, optimized)


def test_factors_stay_where_the_scaled_values_are_read_elsewhere_or_would_narrow():
    b = Build()
    a, c = b.input((4,)), b.input((4,))
    left, right = b.op("multiply", a, b.constant(2.0)), b.op("multiply", c, b.constant(3.0))
    graph = b.returning(b.op("multiply", left, right), b.op("sin", left))
    assert move_constant_factors(graph).stats["move_constant_factors"] == 0
    b = Build()
    a, c = b.input((4,), np.float32), b.input((4,), np.float32)
    left = b.op("multiply", a, b.constant(np.float64(2.0)))  # float64, from float32
    right = b.op("multiply", c, b.constant(np.float64(3.0)))
    graph = b.returning(b.op("multiply", left, right))
    assert move_constant_factors(graph).stats["move_constant_factors"] == 0


@pytest.mark.parametrize("reduction, params", [
    ("sum", {"axis": (1,), "keepdims": True}), ("mean", {"axis": None, "keepdims": False}),
    ("sum_to", {"shape": (1, 5)})])
def test_a_reduction_of_a_scaled_value_scales_the_reduced_value(reduction, params):
    b = Build()
    x = b.input((3, 5))
    scaled = b.op(reduction, b.op("multiply", x, b.constant(1 / 1797)), **params)
    negated = b.op(reduction, b.op("negative", b.input((3, 5))), **params)
    graph = b.returning(scaled, negated)
    result = optimize(graph)
    assert sorted(ops(result)) == sorted([reduction, "multiply", reduction, "negative"])
    assert [n.op for n in result if n.kind == "op" and n.inputs[0] in
            {m.id for m in result if m.op == reduction}] == ["multiply", "negative"]
    assert_same_values(graph, result)


def test_array_factors_and_integer_reductions_stay():
    b = Build()
    x = b.input((3, 5))
    graph = b.returning(b.op("sum", b.op("multiply", x, b.constant(np.arange(1.0, 6.0))),
                             axis=(0,), keepdims=False),
                        b.op("sum", b.op("multiply", b.input((3,), np.int64), b.constant(3)),
                             axis=None, keepdims=False))
    assert move_constant_factors(graph).stats["move_constant_factors"] == 0


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def cross_entropy(z, Y):
    z = z - tracer.stop_gradient(np.max(z, axis=1, keepdims=True))
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * logp) / Y.shape[0]


def generated_source(fn, *arrays):
    tensors = [tracer.constant(a, name=n) for a, n in zip(arrays, ("x", "Y"))]
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors[0])
        loss = fn(*tensors)
    source = codegen.gradient_source(tape, loss, tensors[0])
    got = codegen.load(source).gradient(*arrays)
    np.testing.assert_allclose(got, tape.gradient(loss, tensors[0]).numpy(), rtol=1e-12,
                               atol=1e-15)
    return source


def test_the_rosenbrock_gradient_multiplies_by_one_folded_constant(monkeypatch):
    x = np.random.default_rng(0).uniform(-1.0, 1.0, 10)
    source = generated_source(rosenbrock, x)
    assert "-400.0" in source and "-200.0" not in source
    tracer.check_gradients(rosenbrock, x, order=2)
    assert_generated_gradients_match(rosenbrock, x, monkeypatch=monkeypatch)


def test_a_mean_cross_entropy_scales_the_row_sums_of_its_labels():
    rng = np.random.default_rng(1)
    z, Y = rng.normal(size=(7, 4)), np.eye(4)[rng.integers(0, 4, 7)]
    source = generated_source(cross_entropy, z, Y)
    assert "Y.sum(axis=1, keepdims=True) * (1 / 7)" in source
    tracer.check_gradients(lambda t: cross_entropy(t, Y), z)
