"""Sums of products ``A_t.T @ B_t`` become one product of the matrices concatenated along
their batch axis, and sums of column sums the column sum of that concatenation
(``ir.optimize.batch_products``).

Each rewrite on hand-built graphs, then on the gradient of a batched tanh RNN
unrolled by a Python loop, whose weight and bias gradients are such sums: against
the graph before, the eager tape and finite differences, in generated code.
"""

import numpy as np
import pytest

import codegen
import tracer
from generated_gradients import assert_generated_gradients_match
from ir.optimize.batch_products import (MIN_TERMS, gather_summed_batch_products,
                                        sum_concatenated_terms)
from ir.optimize.passes import optimize
from test_passes import Build, assert_compact, assert_same_values, ops


def product_sum(b, lefts, rights, extra=None):
    """``sum_t lefts[t].T @ rights[t]`` (plus ``extra``) as a chain of adds."""
    terms = [b.op("matmul", b.op("transpose", a, axes=(1, 0)), r) for a, r in zip(lefts, rights)]
    total = terms[0] if extra is None else b.op("add", extra, terms[0])
    for term in terms[1:]:
        total = b.op("add", total, term)
    return total


@pytest.mark.parametrize("count", [MIN_TERMS, 7])
@pytest.mark.parametrize("shapes", [((4, 3), (4, 5)), ((1, 2), (1, 6))])
def test_a_sum_of_batch_products_is_one_product_of_concatenations(count, shapes):
    b = Build()
    lefts = [b.input(shapes[0]) for _ in range(count)]
    rights = [b.input(shapes[1]) for _ in range(count)]
    extra = b.input((shapes[0][1], shapes[1][1]))
    graph = b.returning(product_sum(b, lefts, rights, extra))
    result = gather_summed_batch_products(graph)
    assert result.stats["gather_summed_batch_products"] == 1
    assert sorted(ops(optimize(graph))) == ["add", "concatenate", "concatenate", "matmul",
                                            "transpose"]
    assert_compact(result)
    assert_same_values(graph, result)


def test_too_few_terms_constants_and_shared_products_stay_as_they_are():
    b = Build()
    lefts, rights = [b.input((4, 3)) for _ in range(2)], [b.input((4, 5)) for _ in range(2)]
    few = b.returning(product_sum(b, lefts, rights))
    assert gather_summed_batch_products(few).stats["gather_summed_batch_products"] == 0

    b = Build()
    constant = b.constant(np.ones((4, 3)))
    lefts = [constant] + [b.input((4, 3)) for _ in range(2)]
    rights = [b.input((4, 5)) for _ in range(3)]
    graph = b.returning(product_sum(b, lefts, rights))
    assert gather_summed_batch_products(graph).stats["gather_summed_batch_products"] == 0

    b = Build()
    lefts, rights = [b.input((4, 3)) for _ in range(3)], [b.input((4, 5)) for _ in range(3)]
    total = product_sum(b, lefts, rights)
    first_product = b.graph[b.graph[total].inputs[0]].inputs[0]
    graph = b.returning(total, first_product)  # a product read elsewhere stays
    assert gather_summed_batch_products(graph).stats["gather_summed_batch_products"] == 0


def test_column_sums_of_a_concatenation_s_arrays_are_its_column_sum():
    b = Build()
    lefts = [b.input((4, 3)) for _ in range(3)]
    rights = [b.input((4, 5)) for _ in range(3)]
    weight = product_sum(b, lefts, rights)
    sums = [b.op("sum", r, axis=(0,), keepdims=False) for r in rights]
    bias = b.op("add", b.op("add", sums[0], sums[1]), sums[2])
    graph = b.returning(weight, bias)
    gathered = gather_summed_batch_products(graph)
    result = sum_concatenated_terms(gathered)
    assert result.stats["sum_concatenated_terms"] == 1
    assert sorted(ops(optimize(graph))).count("concatenate") == 2  # the bias shares one
    assert_same_values(graph, result)


def batched_rnn(W_x, W_h, b, xs):
    """A tanh RNN over a batch, unrolled by a Python loop, and a loss of its last state."""
    h = np.tanh(xs[0] @ W_x + b)
    for t in range(1, xs.shape[0]):
        h = np.tanh(xs[t] @ W_x + h @ W_h + b)
    return np.sum(h ** 2)


@pytest.mark.parametrize("steps", [4, 9])
def test_a_batched_rnn_s_weight_gradients_are_gathered(steps):
    rng = np.random.default_rng(steps)
    arrays = [rng.normal(scale=0.4, size=(3, 5)), rng.normal(scale=0.4, size=(5, 5)),
              rng.normal(size=5), rng.normal(size=(steps, 6, 3))]
    tensors = [tracer.constant(a, name=n) for a, n in zip(arrays, ("W_x", "W_h", "b", "xs"))]
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        loss = batched_rnn(*tensors)
    source = codegen.gradient_source(tape, loss, tensors[:3])
    assert source.count("np.concatenate(") >= 3
    grads = codegen.load(source).gradient(*arrays)
    for generated, eager in zip(grads, tape.gradient(loss, tensors[:3])):
        np.testing.assert_allclose(generated, eager.numpy(), rtol=1e-12, atol=1e-14)
    eps = 1e-6
    for k in range(3):
        for index in [(0,) * arrays[k].ndim, tuple(s - 1 for s in arrays[k].shape)]:
            up = [a.copy() for a in arrays]
            down = [a.copy() for a in arrays]
            up[k][index] += eps
            down[k][index] -= eps
            numeric = (batched_rnn(*up) - batched_rnn(*down)) / (2 * eps)
            np.testing.assert_allclose(grads[k][index], numeric, rtol=1e-6, atol=1e-8)


def test_second_derivatives_through_gathered_products(monkeypatch):
    rng = np.random.default_rng(3)
    W_h = rng.normal(scale=0.4, size=(4, 4))
    xs = rng.normal(size=(4, 3, 4))
    assert_generated_gradients_match(
        lambda W, x: batched_rnn(np.eye(4), W, np.zeros(4), x)[None],
        W_h, xs, monkeypatch=monkeypatch)
