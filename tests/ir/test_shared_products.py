"""Vector-matrix products sharing their matrix become one product of stacked vectors,
read by rows (``ir.optimize.shared_products``), and a stack of an array's rows is the array.

On hand-built graphs, then on a tanh RNN unrolled by a Python loop, whose inputs
all meet one weight: against the graph before (equal up to rounding: a matrix
product sums in another order than a vector-matrix product), the eager tape and
finite differences.
"""

import numpy as np

import codegen
import tracer
from generated_gradients import assert_generated_gradients_match
from ir.optimize.passes import optimize
from ir.optimize.shared_products import MIN_PRODUCTS, stack_shared_products
from test_outer_product_sums import HIDDEN, recorded_rnn, rnn_values
from test_passes import Build, assert_compact, assert_same_values, ops


def test_products_of_constant_vectors_by_one_matrix_are_rows_of_one_product():
    b = Build()
    U = b.input((4, 6), name="U")
    rng = np.random.default_rng(1)
    products = [b.op("matmul", b.constant(rng.normal(size=4)), U) for _ in range(MIN_PRODUCTS)]
    total = products[0]
    for p in products[1:]:
        total = b.op("add", b.op("tanh", total), p)
    graph = b.returning(total)
    result = stack_shared_products(graph)
    assert result.stats["stack_shared_products"] == MIN_PRODUCTS
    assert_compact(result)
    optimized = optimize(graph)
    assert ops(optimized).count("matmul") == 1 and ops(optimized).count("getitem") == 3
    (stacked,) = [n for n in optimized if n.kind == "constant"]
    assert stacked.shape == (MIN_PRODUCTS, 4)
    assert_same_values(graph, optimized, rtol=1e-12)


def test_vectors_computed_later_are_computed_before_the_first_product():
    b = Build()
    U = b.input((3, 3))
    vectors = [b.input((3,)) for _ in range(4)]
    state = b.op("matmul", b.op("sin", vectors[0]), U)
    for v in vectors[1:]:  # each step's vector is computed after the last step's product
        state = b.op("multiply", state, b.op("matmul", b.op("sin", v), U))
    graph = b.returning(state)
    result = stack_shared_products(graph)
    assert result.stats["stack_shared_products"] == 4
    assert_compact(result)
    first_matmul = ops(result).index("matmul")
    assert ops(result)[:first_matmul].count("sin") == 4
    assert_same_values(graph, result, rtol=1e-12)


def test_a_recurrence_stays_and_so_do_too_few_products():
    b = Build()
    W = b.input((3, 3))
    h = b.input((3,))
    for _ in range(5):
        h = b.op("tanh", b.op("matmul", h, W))
    graph = b.returning(h)
    assert stack_shared_products(graph).stats["stack_shared_products"] == 0
    b = Build()
    U = b.input((3, 3))
    two = [b.op("matmul", b.input((3,)), U) for _ in range(MIN_PRODUCTS - 1)]
    graph = b.returning(*two)
    assert stack_shared_products(graph).stats["stack_shared_products"] == 0


def test_a_recurrence_leaves_its_independent_products_to_stack():
    b = Build()
    W, U = b.input((3, 3)), b.input((3, 3))
    h = b.input((3,))
    for _ in range(4):  # h @ W depends on the last step; x @ U does not
        h = b.op("tanh", b.op("add", b.op("matmul", h, W), b.op("matmul", b.input((3,)), U)))
    graph = b.returning(h)
    result = optimize(graph)
    assert ops(result).count("matmul") == 4 + 1
    assert_same_values(graph, result, rtol=1e-12)


def test_products_of_products_stack_in_the_next_round():
    b = Build()
    U, V = b.input((3, 4)), b.input((4, 2))
    first = [b.op("matmul", b.input((3,)), U) for _ in range(3)]
    second = [b.op("matmul", b.op("tanh", y), V) for y in first]
    graph = b.returning(*second)
    once = stack_shared_products(graph)
    assert once.stats["stack_shared_products"] == 3  # V's vectors wait for U's rows
    result = optimize(graph)
    assert ops(result).count("matmul") == 2 and ops(result).count("tanh") == 3
    assert_same_values(graph, result, rtol=1e-12)


def test_a_shared_matrix_on_the_left_multiplies_the_stack_transposed():
    b = Build()
    W = b.input((5, 3))
    products = [b.op("matmul", W, b.input((3,))) for _ in range(4)]
    graph = b.returning(*products)
    result = optimize(graph)
    assert sorted(ops(result)) == ["getitem"] * 4 + ["matmul", "stack", "transpose"]
    assert_same_values(graph, result, rtol=1e-12)


def test_a_stack_of_an_arrays_rows_is_the_array_or_a_slice_of_it():
    b = Build()
    x = b.input((5, 3))
    rows = [b.op("getitem", x, key=(k,)) for k in range(5)]
    whole = b.op("stack", *rows, axis=0)
    middle = b.op("stack", *rows[1:4], axis=0)
    backwards = b.op("stack", *rows[::-1], axis=0)
    first_three_backwards = b.op("stack", *rows[2::-1], axis=0)
    skipping = b.op("stack", rows[0], rows[2], axis=0)
    graph = b.returning(b.op("sin", whole), b.op("cos", middle), b.op("tan", backwards),
                        b.op("exp", first_three_backwards), skipping)
    result = optimize(graph)
    assert sorted(ops(result)) == (["cos", "exp"] + ["getitem"] * 5
                                   + ["sin", "stack", "tan"])
    keys = [n.params["key"] for n in result if n.op == "getitem"]
    for key in [(slice(1, 4),), (slice(None, None, -1),), (slice(2, None, -1),)]:
        assert key in keys
    assert_same_values(graph, result, rtol=0)


# --- an unrolled RNN --------------------------------------------------------------------

def test_the_rnn_multiplies_all_its_inputs_by_its_input_weight_at_once():
    tape, loss, variables = recorded_rnn()
    source = codegen.gradient_source(tape, loss, variables)
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert sum(line.count("@ U") for line in code) == 1
    module = codegen.load(source)
    W, U, b, _ = rnn_values()
    for got, want in zip(module.gradient(W, U, b), tape.gradient(loss, variables), strict=True):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-10, atol=1e-12)


def rnn_over_tensor_rows(W, U, b, xs):
    """A tanh RNN whose inputs are the rows of a tensor, read one step at a time."""
    h = np.zeros(HIDDEN)
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W + xs[t] @ U + b)
    return np.sum(h * h)


def recorded_rows_rnn(values):
    """A persistent tape of ``rnn_over_tensor_rows`` on tensors named W, U, b and xs,
    with the loss and the tensors."""
    tensors = [tracer.constant(v, name=n) for v, n in zip(values, ("W", "U", "b", "xs"))]
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        loss = rnn_over_tensor_rows(*tensors)
    return tape, loss, tensors


def test_an_rnn_over_a_tensors_rows_multiplies_the_tensor_once(monkeypatch):
    W, U, b, xs = rnn_values(2)
    tape, loss, tensors = recorded_rows_rnn((W, U, b, xs))
    source = codegen.gradient_source(tape, loss, tensors)
    assert "xs @ U" in source and "np.array([xs[" not in source
    tracer.check_gradients(rnn_over_tensor_rows, W, U, b, xs)
    assert_generated_gradients_match(rnn_over_tensor_rows, W, U, b, xs, monkeypatch=monkeypatch)
