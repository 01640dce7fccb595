"""Sums of outer products become one product of stacked vectors, and a sum of stacked
vectors the sum of their stack (``ir.optimize.outer_products``); a stack along a new first axis is
written ``np.array([...])``.

Each rewrite on hand-built graphs, then on the gradient of a tanh RNN unrolled by
a Python loop, whose weight gradients are such sums: against the graph before,
the eager tape, and finite differences.
"""

import numpy as np
import pytest

import codegen
import ir
import tracer
from generated_gradients import assert_generated_gradients_match
from ir.optimize.outer_products import MIN_TERMS, gather_summed_outer_products, sum_stacked_terms
from ir.optimize.passes import optimize
from ir.primitive import PRIMITIVES
from test_passes import Build, assert_compact, assert_same_values, ops


def outer_product_sum(b, columns, rows, extra=None):
    """``sum_k reshape(columns[k], (n, 1)) * rows[k]`` (plus ``extra``) as a chain of adds."""
    terms = [b.op("multiply", b.op("reshape", c, shape=(b.graph[c].shape[0], 1)), r)
             for c, r in zip(columns, rows)]
    total = terms[0] if extra is None else b.op("add", extra, terms[0])
    for term in terms[1 if extra is None else 1:]:
        total = b.op("add", total, term)
    return total


def test_a_sum_of_outer_products_is_one_product_of_stacked_vectors():
    b = Build()
    columns, rows = [b.input((5,)) for _ in range(4)], [b.input((3,)) for _ in range(4)]
    extra = b.input((5, 3))
    graph = b.returning(outer_product_sum(b, columns, rows, extra))
    result = gather_summed_outer_products(graph)
    assert result.stats["gather_summed_outer_products"] == 1
    assert sorted(ops(optimize(graph))) == ["add", "matmul", "stack", "stack", "transpose"]
    assert_compact(result)
    assert_same_values(graph, result)


def test_constant_columns_stack_into_one_constant():
    b = Build()
    constants = [b.constant(np.arange(4.0).reshape(4, 1) + k) for k in range(3)]
    rows = [b.input((6,)) for _ in range(3)]
    total = b.op("add", b.op("add", b.op("multiply", constants[0], rows[0]),
                              b.op("multiply", rows[1], constants[1])),
                 b.op("multiply", constants[2], rows[2]))
    graph = b.returning(total)
    result = optimize(graph)
    assert ops(result) == ["stack", "matmul"]
    (stacked,) = [n for n in result if n.kind == "constant"]
    assert stacked.shape == (4, 3)  # the transposed stack, folded
    assert_same_values(graph, result)


def test_too_few_shared_or_mixed_terms_stay_as_they_are():
    b = Build()
    column, row = b.input((5,)), b.input((3,))
    one = outer_product_sum(b, [column], [row], extra=b.input((5, 3)))
    graph = b.returning(one)
    assert MIN_TERMS == 2 and gather_summed_outer_products(graph).stats[
        "gather_summed_outer_products"] == 0
    # A product some other node reads stays, and is no longer a term to gather.
    b = Build()
    columns, rows = [b.input((5,)) for _ in range(2)], [b.input((3,)) for _ in range(2)]
    total = outer_product_sum(b, columns, rows)
    read_elsewhere = b.graph[total].inputs[0]
    graph = b.returning(total, b.op("sin", read_elsewhere))
    assert gather_summed_outer_products(graph).stats["gather_summed_outer_products"] == 0


def test_a_sum_of_stacked_vectors_is_the_sum_of_the_stack_in_the_same_order():
    b = Build()
    vectors = [b.input((3,)) for _ in range(5)]
    stack = b.op("stack", *vectors, axis=0)
    total = vectors[0]
    for v in vectors[1:]:
        total = b.op("add", total, v)
    graph = b.returning(stack, total)
    result = sum_stacked_terms(graph)
    assert result.stats["sum_stacked_terms"] == 1
    optimized = optimize(graph)
    assert ops(optimized) == ["stack", "sum"]
    for want, got in zip(ir.evaluate(graph), ir.evaluate(optimized)):
        np.testing.assert_array_equal(got, want)  # rows added in order, as the adds did


def test_np_outer_terms_are_gathered_too():
    rng = np.random.default_rng(0)
    a = tracer.constant(rng.normal(size=(6, 4)))
    c = tracer.constant(rng.normal(size=(6, 3)))
    with tracer.GradientTape() as tape:
        tape.watch([a, c])
        total = sum(np.outer(a[k], c[k]) for k in range(6))
        np.sum(np.sin(total))
    graph = tape.graph
    graph.outputs = [len(graph) - 1]
    optimized = optimize(graph)
    assert "matmul" in ops(optimized) and "reshape" not in ops(optimized)
    assert_same_values(graph, optimized)


# --- an unrolled RNN -------------------------------------------------------------------

HIDDEN, INPUTS, STEPS = 5, 3, 12


def rnn_values(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(HIDDEN, HIDDEN)) / 2, rng.normal(size=(INPUTS, HIDDEN)) / 2,
            0.1 * rng.normal(size=HIDDEN), rng.normal(size=(STEPS, INPUTS)))


def unrolled_rnn(xs):
    """The last state's sum of squares of a tanh RNN over the rows of the plain array
    ``xs``, a Python loop the tape records op by op."""
    def loss(W, U, b):
        h = np.zeros(HIDDEN)
        for x in xs:
            h = np.tanh(h @ W + x @ U + b)
        return np.sum(h * h)
    return loss


def recorded_rnn():
    W, U, b, xs = rnn_values()
    variables = [tracer.Variable(v, name=n) for v, n in zip((W, U, b), "WUb")]
    with tracer.GradientTape(persistent=True) as tape:
        loss = unrolled_rnn(xs)(*variables)
    return tape, loss, variables


def test_an_unrolled_rnn_gathers_its_weight_gradients_over_one_stack_of_cotangents():
    tape, loss, variables = recorded_rnn()
    source = codegen.gradient_source(tape, loss, variables)
    assert "np.reshape" not in source
    stacks = [line for line in source.splitlines() if "= np.array([d_" in line]
    assert len(stacks) == 1, "d_W, d_U and d_b read one stack of the steps' cotangents"
    name = stacks[0].split("=")[0].strip()
    assert f"d_b = {name}.sum(axis=0)" in source
    module = codegen.load(source)
    W, U, b, xs = rnn_values()
    eager = tape.gradient(loss, variables)
    for got, want in zip(module.gradient(W, U, b), eager, strict=True):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-10, atol=1e-12)


def test_the_gathered_rnn_gradient_matches_differences_and_the_tape_to_second_order(
        monkeypatch):
    W, U, b, xs = rnn_values(1)
    tracer.check_gradients(unrolled_rnn(xs), W, U, b, order=2)
    assert_generated_gradients_match(unrolled_rnn(xs), W, U, b, monkeypatch=monkeypatch)


def test_the_optimised_rnn_adjoint_computes_what_the_raw_one_does():
    tape, loss, variables = recorded_rnn()
    graph = tape.graph
    sources = [n.id for n in graph if n.kind == "variable"]
    adjoint = ir.adjoint(graph, [len(graph) - 1], sources)
    optimized = optimize(adjoint)
    assert optimized.stats["gather_summed_outer_products"] >= 2
    assert optimized.stats["sum_stacked_terms"] == 1
    assert_same_values(adjoint, optimized, rtol=1e-12)


# --- the spelling of a stack ------------------------------------------------------------

@pytest.mark.parametrize("dtypes", [(np.float32, np.float64), (np.int64, np.float32),
                                    (np.bool_, np.int64), (np.complex64, np.float64)])
def test_a_stack_along_a_new_first_axis_is_written_as_an_array_of_its_parts(dtypes):
    spelling = PRIMITIVES["stack"].spelling({"axis": 0}, [(2, 3), (2, 3)])
    assert spelling == "np.array([{0}, {1}])"
    parts = [np.arange(6).reshape(2, 3).astype(d) for d in dtypes]
    written = eval(spelling.format("parts[0]", "parts[1]"))
    expected = np.stack(parts, axis=0)
    assert written.dtype == expected.dtype
    np.testing.assert_array_equal(written, expected)
    assert PRIMITIVES["stack"].spelling({"axis": 1}, [(2,), (2,)]).startswith("np.stack(")
