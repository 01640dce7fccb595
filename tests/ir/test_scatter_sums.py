"""Sums of scatters into zeros become fewer scatters (``ir.optimize.scatters``): of the sum of
values scattered at one key, or of the stack of whole rows at consecutive indices.

On hand-built graphs (the same arrays, bit for bit), then on the Rosenbrock
function and on a loop over a tensor's rows: against the eager tape and finite
differences.
"""

import numpy as np

import codegen
import tracer
from generated_gradients import assert_generated_gradients_match
from ir.optimize.passes import optimize
from ir.primitives.shape import IndexArg
from ir.optimize.scatters import merge_scatters
from test_passes import Build, assert_compact, assert_same_values, ops
from test_shared_products import recorded_rows_rnn, rnn_values

HEAD, TAIL = (slice(None, -1),), (slice(1, None),)


def scattered_sum(b, parts, shape):
    """``sum(scatter_add(value, key, shape))`` over ``parts`` of ``(value, key)``, in order."""
    terms = [b.op("scatter_add", value, key=key, shape=shape) for value, key in parts]
    total = terms[0]
    for term in terms[1:]:
        total = b.op("add", total, term)
    return total


def test_scatters_at_one_key_scatter_the_sum_of_their_values_once():
    b = Build()
    a, c, d = b.input((4,)), b.input((4,)), b.input((4,))
    graph = b.returning(scattered_sum(b, [(a, HEAD), (c, HEAD), (d, TAIL)], (5,)))
    result = merge_scatters(graph)
    assert result.stats["merge_scatters"] == 1
    assert_compact(result)
    assert sorted(ops(optimize(graph))) == ["add", "add", "scatter_add", "scatter_add"]
    assert_same_values(graph, optimize(graph), rtol=0)


def test_scatters_merge_only_at_basic_keys_read_by_the_sum_alone_of_one_dtype():
    b = Build()
    a, c = b.input((4,)), b.input((4,))
    index = b.constant(np.array([0, 2, 2, 4]))
    advanced = [b.op("scatter_add", v, index, key=(IndexArg(0),), shape=(5,)) for v in (a, c)]
    graph = b.returning(b.op("add", *advanced))
    assert merge_scatters(graph).stats["merge_scatters"] == 0
    b = Build()
    a, c = b.input((4,)), b.input((4,))
    total = scattered_sum(b, [(a, HEAD), (c, HEAD)], (5,))
    graph = b.returning(total, b.op("sin", b.graph[total].inputs[0]))
    assert merge_scatters(graph).stats["merge_scatters"] == 0
    b = Build()
    a, c = b.input((4,), np.float32), b.input((4,))
    graph = b.returning(scattered_sum(b, [(a, HEAD), (c, HEAD)], (5,)))
    assert merge_scatters(graph).stats["merge_scatters"] == 0


def test_whole_rows_at_consecutive_indices_are_one_scatter_of_their_stack():
    b = Build()
    rows = [b.input((3,)) for _ in range(4)]
    every = scattered_sum(b, [(r, (k,)) for k, r in enumerate(rows)], (4, 3))
    some = scattered_sum(b, [(rows[0], (4,)), (rows[1], (-4,)), (rows[2], (2,))], (5, 3))
    graph = b.returning(every, some)
    result = optimize(graph)
    assert sorted(ops(result)) == ["add", "scatter_add", "scatter_add", "stack", "stack"]
    keys = [n.params["key"] for n in result if n.op == "scatter_add"]
    assert keys == [(4,), (slice(1, 3),)]
    assert_same_values(graph, result, rtol=0)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def test_the_rosenbrock_gradient_scatters_once_per_slice(monkeypatch):
    x = np.random.default_rng(0).uniform(-1.0, 1.0, 12)
    t = tracer.constant(x, name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(t)
        loss = rosenbrock(t)
    source = codegen.gradient_source(tape, loss, t)
    assert source.count("_scatter(") == 2 + 1  # two calls and the helper's definition
    d_x = codegen.load(source).gradient(x)
    np.testing.assert_allclose(d_x, tape.gradient(loss, t).numpy(), rtol=1e-12)
    tracer.check_gradients(rosenbrock, x, order=2)
    assert_generated_gradients_match(rosenbrock, x, monkeypatch=monkeypatch)


def test_a_loop_over_a_tensors_rows_gets_its_gradient_as_one_array():
    W, U, b, xs = rnn_values(3)
    tape, loss, tensors = recorded_rows_rnn((W, U, b, xs))
    source = codegen.gradient_source(tape, loss, tensors)
    assert "_scatter" not in source and "[::-1]" in source
    module = codegen.load(source)
    got = module.gradient(W, U, b, xs)
    for g, e in zip(got, tape.gradient(loss, tensors), strict=True):
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-10, atol=1e-12)
