"""Optimisation passes: each pass on small hand-built graphs, then ``optimize`` on the
adjoint graph of every case of the gradient table, to second order.

Hand-built graphs take each node's shape and dtype from its primitive, as
recorded graphs do, so a test can ask for exactly the weak or strong scalar
constants numpy's type promotion tells apart.
"""

import numpy as np
import pytest

import ir
import tracer
from ir.optimize.passes import (FOLD_LIMIT, eliminate_common_subexpressions, eliminate_dead_code,
                       fold_constants, optimize, simplify)
from ir.optimize.polynomials import collect_polynomials
from ir.primitive import PRIMITIVES
from ir.primitives.shape import IndexArg
from ir.symbolic import PYTHON_SCALARS
from gradient_table import float32_rows, rows
from nested_tapes import kth_derivative

PASS_NAMES = ["eliminate_dead_code", "eliminate_common_subexpressions", "simplify",
              "fold_constants"]


class Build:
    """A graph under construction: ``input``, ``constant`` and ``op`` return node ids."""

    def __init__(self):
        self.graph = ir.Graph()
        self.rng = np.random.default_rng(0)

    def input(self, shape=(3,), dtype=np.float64, name=None, value=None):
        if value is None:
            value = self.rng.uniform(0.5, 2.0, shape).astype(dtype)
        value = np.asarray(value, dtype=dtype)
        return self.graph.add_node("input", "input", (), {}, value.shape, value.dtype,
                                   name=name, value=value).id

    def constant(self, value):
        """A Python scalar stays one (weakly typed); anything else becomes an array."""
        if not isinstance(value, PYTHON_SCALARS):
            value = np.asarray(value)
        return self.graph.add_node("constant", "constant", (), {}, np.shape(value),
                                   np.result_type(value), value=value).id

    def op(self, name, *args, node_name=None, meta=None, **params):
        nodes = [self.graph[a] for a in args]
        avals = [n.value if isinstance(n.value, PYTHON_SCALARS) else (n.shape, n.dtype)
                 for n in nodes]
        shape, dtype = PRIMITIVES[name].abstract(avals, params)
        return self.graph.add_node("op", name, args, params, shape, dtype, name=node_name,
                                   meta=meta).id

    def returning(self, *outputs):
        self.graph.outputs = list(outputs)
        return self.graph


def ops(graph):
    return [n.op for n in graph if n.kind == "op"]


def snapshot(graph):
    """Everything a pass could change in place, to compare before and after."""
    return ([(id(n), n.id, n.kind, n.op, n.inputs, repr(n.params), n.shape, n.dtype, n.name,
              repr(n.meta), id(n.value)) for n in graph], list(graph.outputs))


def assert_same_values(graph, optimized, rtol=1e-12):
    """Same shapes and dtypes, values within ``rtol`` of the largest magnitude (rewrites may
    round differently, and where terms cancel that shows in the smaller elements)."""
    for want, got in zip(ir.evaluate(graph), ir.evaluate(optimized), strict=True):
        assert (want is None) == (got is None)
        if want is not None:
            assert np.shape(got) == np.shape(want)
            assert np.result_type(got) == np.result_type(want)
            scale = np.max(np.abs(want), initial=0.0, where=np.isfinite(want))
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale)


def assert_compact(graph):
    """Ids 0..n-1 in evaluation order."""
    assert [n.id for n in graph] == list(graph.nodes) == list(range(len(graph)))
    assert all(i < node.id for node in graph for i in node.inputs)


# --- dead code ----------------------------------------------------------------

def test_dead_code_drops_unused_ops_and_leaves_and_renumbers():
    b = Build()
    unused = b.input(name="unused")
    x = b.input(name="x")
    b.op("cos", unused)
    c = b.constant(2.0)
    out = b.op("multiply", x, c)
    graph = b.returning(None, out)
    result = eliminate_dead_code(graph)
    assert [n.op for n in result] == ["input", "constant", "multiply"]
    assert result.outputs == [None, 2] and result[0].name == "x"
    assert result.stats == {"ops_before": 2, "ops_after": 1, "eliminate_dead_code": 2}
    assert_compact(result)
    assert_same_values(graph, result)


def test_adjoint_nodes_keep_the_line_they_differentiate_when_it_is_dead():
    b = Build()
    x = b.input()
    total = b.op("sum", x, axis=None, keepdims=False)
    used = b.op("sin", x)
    b.graph[total].source = b.graph[used].source = ir.SourceLocation("model.py", 11, "f")
    seed = b.op("broadcast_to", b.constant(np.asarray(1.0)), shape=(3,),
                meta={"adjoint_of": total})
    grad = b.op("multiply", seed, used, meta={"adjoint_of": used})
    result = eliminate_dead_code(b.returning(grad))
    by_op = {n.op: n for n in result}
    assert "sum" not in by_op
    assert by_op["broadcast_to"].meta["adjoint_of"] is None
    assert by_op["broadcast_to"].meta["adjoint_source"] == ir.SourceLocation("model.py", 11, "f")
    assert by_op["multiply"].meta["adjoint_of"] == by_op["sin"].id
    assert "adjoint of" in result.to_text()


def test_node_ids_in_meta_follow_the_renumbering():
    x = tracer.constant(np.linspace(0.5, 1.5, 4))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        np.sum(np.sin(x) * x)
    graph = tape.graph
    target = [n.id for n in graph if n.kind == "op"][-1]
    adjoint = ir.adjoint(graph, [target], [0], seed_inputs=True)
    optimized = optimize(adjoint)
    references = {key: [(n.id, n.meta[key]) for n in optimized if key in n.meta]
                  for key in ("adjoint_of", "cotangent_of", "seed_of")}
    assert all(references.values())
    for key, pairs in references.items():
        assert all(ref is None or ref < node for node, ref in pairs)
    (seed, _), = references["seed_of"]
    old_seed = next(n.id for n in adjoint if "seed_of" in n.meta)
    want, = ir.evaluate(adjoint, {old_seed: 3.0})
    got, = ir.evaluate(optimized, {seed: 3.0})
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert "adjoint of" in optimized.to_text()


# --- common subexpressions ------------------------------------------------------

def test_equal_ops_merge_into_the_first_and_commutative_operands_may_swap():
    b = Build()
    x, y = b.input(), b.input()
    outs = [b.op("sin", x), b.op("sin", x), b.op("add", x, y), b.op("add", y, x),
            b.op("subtract", x, y), b.op("subtract", y, x)]
    graph = b.returning(*outs)
    result = eliminate_common_subexpressions(graph)
    assert ops(result) == ["sin", "add", "subtract", "subtract"]
    assert result.outputs[0] == result.outputs[1] and result.outputs[2] == result.outputs[3]
    assert result.stats["eliminate_common_subexpressions"] == 2
    assert_same_values(graph, result)


def test_constants_merge_only_when_numpy_types_them_alike():
    b = Build()
    values = [1, 1.0, True, np.asarray(1.0), np.asarray(1.0, np.float32), 0.0, -0.0,
              np.arange(3.0), np.arange(3.0), np.arange(3)]
    ids = [b.constant(v) for v in values]
    result = eliminate_common_subexpressions(b.returning(*ids))
    assert len(result) == len(values) - 1
    assert result.outputs[7] == result.outputs[8]


def test_params_compare_by_meaning_not_by_spelling():
    b = Build()
    x = b.input((4, 5))
    index = b.constant(np.array([0, 2]))
    keys = [(slice(1, 3), IndexArg(0)), (slice(1, 3), IndexArg(0)), (slice(1, 4), IndexArg(0))]
    items = [b.op("getitem", x, index, key=key) for key in keys]
    casts = [b.op("cast", x, dtype=np.float32), b.op("cast", x, dtype=np.dtype("float32"))]
    moves = [b.op("transpose", x, axes=(1, 0)), b.op("reshape", x, shape=(5, 4))]
    result = eliminate_common_subexpressions(b.returning(*items, *casts, *moves))
    assert ops(result) == ["getitem", "getitem", "cast", "transpose", "reshape"]


def test_a_merged_node_passes_its_name_to_an_unnamed_survivor():
    b = Build()
    x = b.input()
    first = b.op("exp", x)
    second = b.op("exp", x, node_name="h")
    result = eliminate_common_subexpressions(b.returning(first, second))
    assert result[result.outputs[0]].name == "h"


# --- constant folding -------------------------------------------------------------

def test_small_constant_results_fold_and_large_ones_stay():
    b = Build()
    x = b.input()
    small = b.op("sin", b.constant(np.arange(6.0).reshape(2, 3)))
    large = b.op("cos", b.constant(np.arange(FOLD_LIMIT + 1.0)))
    out = b.op("multiply", x, b.op("sum", small, axis=(0,), keepdims=False))
    graph = b.returning(out, large)
    result = optimize(graph)
    assert ops(result) == ["cos", "multiply"]
    assert result.stats["fold_constants"] == 2
    assert_same_values(graph, result)


def test_folded_python_scalars_become_arrays_so_promotion_is_unchanged():
    b = Build()
    x = b.input(dtype=np.float32)
    six = b.op("multiply", b.constant(2.0), b.constant(3.0))
    graph = b.returning(b.op("multiply", x, six))
    assert graph[graph.outputs[0]].dtype == np.float64
    result = fold_constants(graph)
    assert result[six].kind == "constant" and isinstance(result[six].value, np.ndarray)
    assert_same_values(graph, result)


# --- algebraic simplification ---------------------------------------------------

IDENTITIES = [
    ("multiply", "x", 1.0), ("multiply", 1, "x"), ("add", "x", 0.0), ("add", 0, "x"),
    ("subtract", "x", 0), ("divide", "x", 1.0), ("power", "x", 1),
    ("multiply", "x", np.ones(3)), ("multiply", "x", np.asarray(1.0)),
]


@pytest.mark.parametrize("op, a, c", IDENTITIES)
def test_identities_leave_just_the_operand(op, a, c):
    b = Build()
    x = b.input(name="x")
    args = (x, b.constant(c)) if isinstance(a, str) else (b.constant(a), x)
    graph = b.returning(b.op(op, *args, node_name="y"))
    result = optimize(graph)
    assert ops(result) == [] and result.outputs == [0]
    assert result[0].name == "x"
    assert_same_values(graph, result)


NOT_IDENTITIES = [
    ("float32 * float64 array", np.float32, (3,), "multiply", np.asarray(1.0)),
    ("int * 1.0", np.int64, (3,), "multiply", 1.0),
    ("broadcasting ones", np.float64, (3,), "multiply", np.ones((2, 3))),
    ("complex * 1", np.complex128, (3,), "multiply", 1.0),
    ("x * 0", np.float64, (3,), "multiply", 0.0),
    ("x ** 1 from float_power", np.float32, (3,), "float_power", 1.0),
]


@pytest.mark.parametrize("dtype, shape, op, c", [p[1:] for p in NOT_IDENTITIES],
                         ids=[p[0] for p in NOT_IDENTITIES])
def test_no_rewrite_changes_a_shape_a_dtype_or_a_nan(dtype, shape, op, c):
    b = Build()
    x = b.input(shape, dtype, value=np.full(shape, np.nan).astype(dtype) if dtype != np.int64
                else None)
    graph = b.returning(b.op(op, x, b.constant(c)))
    result = optimize(graph)
    assert ops(result) == [op]
    np.testing.assert_array_equal(ir.evaluate(result)[0], ir.evaluate(graph)[0])


@pytest.mark.parametrize("op", ["subtract", "divide"])
def test_x_minus_x_and_x_over_x_stay(op):
    b = Build()
    x = b.input(value=[np.inf, np.nan, 0.0])
    graph = b.returning(b.op(op, x, x))
    assert ops(optimize(graph)) == [op]


def test_negations_cancel_and_fold_into_add_and_subtract():
    b = Build()
    x, y = b.input(), b.input()
    outs = [b.op("negative", b.op("negative", x)), b.op("add", x, b.op("negative", y)),
            b.op("add", b.op("negative", x), y), b.op("subtract", x, b.op("negative", y))]
    graph = b.returning(*outs)
    result = optimize(graph)
    assert result.outputs[0] == 0
    assert ops(result) == ["subtract", "subtract", "add"]
    assert_same_values(graph, result, rtol=0)


def test_transposes_compose_and_the_identity_vanishes():
    b = Build()
    x = b.input((2, 3, 4))
    back = b.op("transpose", b.op("transpose", x, axes=(1, 2, 0)), axes=(2, 0, 1))
    once = b.op("transpose", b.op("transpose", x, axes=(1, 0, 2)), axes=(0, 2, 1))
    graph = b.returning(back, once)
    result = simplify(graph)
    assert result.outputs[0] == x
    assert result[result.outputs[1]].params == {"axes": (1, 2, 0)}
    assert ops(eliminate_dead_code(result)) == ["transpose"]
    assert_same_values(graph, result, rtol=0)


def test_reshapes_collapse_and_no_op_shape_changes_vanish():
    b = Build()
    x = b.input((2, 3))
    outs = [b.op("reshape", b.op("reshape", x, shape=(6,)), shape=(3, 2)),
            b.op("reshape", b.op("reshape", x, shape=(6,)), shape=(2, 3)),
            b.op("broadcast_to", x, shape=(2, 3)), b.op("sum_to", x, shape=(2, 3)),
            b.op("cast", x, dtype=np.float64), b.op("cast", x, dtype=np.float32),
            b.op("sum_to", b.op("sum_to", x, shape=(1, 3)), shape=(3,))]
    graph = b.returning(*outs)
    result = optimize(graph)
    assert result.outputs[1:5] == [x] * 4
    assert ops(result) == ["reshape", "cast", "sum_to"]
    assert_same_values(graph, result)


def test_a_broadcast_operand_becomes_implicit_only_where_the_result_keeps_its_shape():
    b = Build()
    x = b.input((3,), np.float32)
    scalar = b.constant(np.asarray(2.0, np.float32))
    same = b.op("multiply", x, b.op("broadcast_to", scalar, shape=(3,)))
    wider = b.op("multiply", x, b.op("broadcast_to", scalar, shape=(2, 3)))
    weak = b.op("multiply", x, b.op("broadcast_to", b.constant(2.0), shape=(3,)))
    graph = b.returning(same, wider, weak)
    result = optimize(graph)
    assert ops(result) == ["multiply", "multiply", "multiply"]
    assert result[result[result.outputs[1]].inputs[1]].shape == (2, 3)
    assert [result[o].dtype for o in result.outputs] == [np.float32, np.float32, np.float64]
    assert_same_values(graph, result)


def test_a_0d_array_operand_becomes_a_python_float_where_that_types_alike():
    b = Build()
    x64, x32 = b.input(), b.input(dtype=np.float32)
    two = b.constant(np.asarray(2.0))
    graph = b.returning(b.op("multiply", x64, two), b.op("multiply", x32, two))
    result = simplify(graph)
    factors = [result[result[o].inputs[1]].value for o in result.outputs]
    assert isinstance(factors[0], float) and isinstance(factors[1], np.ndarray)
    assert_same_values(graph, result, rtol=0)


def test_a_numpy_scalar_operand_becomes_a_python_float_only_where_it_computes_the_same():
    """``np.float64(2.0)`` is a Python float to ``isinstance`` but typed strongly by numpy:
    it becomes ``2.0`` where the op computes in float64 either way, and stays where
    numpy would compute in float64 with it and in float32 without (a comparison's
    result dtype does not show that)."""
    b = Build()
    x64, x32 = b.input(), b.input(dtype=np.float32, value=[0.1, 0.2, 0.05])
    two, tenth = b.constant(np.float64(2.0)), b.constant(np.asarray(0.1))
    graph = b.returning(b.op("multiply", x64, two), b.op("multiply", x32, two),
                        b.op("less_equal", x32, tenth), b.op("less_equal", x64, tenth))
    result = simplify(graph)
    factors = [result[result[o].inputs[1]].value for o in result.outputs]
    assert [type(f) for f in factors] == [float, np.float64, np.ndarray, np.ndarray]
    assert_same_values(graph, result, rtol=0)
    np.testing.assert_array_equal(ir.evaluate(result)[2], [False, False, True])


def test_a_factor_folded_with_a_0d_array_is_no_numpy_scalar():
    """``(g * np.asarray(-100.0)) * 2`` folds to ``g * -200.0`` in float64 (the product of
    the factors is a numpy scalar, held as the strongly typed value it is until it is
    seen to compute the same as a Python float); with ``g`` in float32 it stays an
    array, which makes the product float64 as the recorded one is."""
    outputs = {}
    for dtype in (np.float64, np.float32):
        b = Build()
        g = b.input(dtype=dtype)
        graph = b.returning(b.op("multiply", b.op("multiply", g, b.constant(np.asarray(-100.0))),
                                 b.constant(2)))
        result = optimize(graph)
        assert ops(result) == ["multiply"]
        outputs[dtype] = result[result[result.outputs[0]].inputs[1]].value
        assert_same_values(graph, result, rtol=0)
    assert type(outputs[np.float64]) is float and outputs[np.float64] == -200.0
    assert isinstance(outputs[np.float32], np.ndarray) and outputs[np.float32] == -200.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_constant_factors_fold_into_one_and_a_unit_factor_vanishes(dtype):
    b = Build()
    g = b.input(dtype=dtype)
    back = b.op("multiply", b.op("multiply", g, b.constant(2.0)), b.constant(0.5))
    quarter = b.op("negative", b.op("divide", g, b.constant(4)))
    scaled = b.op("divide", b.op("multiply", b.constant(3.0), g), b.constant(np.full(3, 2.0)))
    doubled = b.op("add", quarter, quarter)
    graph = b.returning(back, quarter, scaled, doubled)
    result = optimize(graph)
    assert result.outputs[0] == g
    assert ops(result) == ["divide", "multiply", "multiply"]
    assert result[result[result.outputs[1]].inputs[1]].value == -4
    assert_same_values(graph, result, rtol=1e-6 if dtype == np.float32 else 1e-15)


def test_zero_and_infinite_factors_do_not_fold():
    b = Build()
    g = b.input()
    outs = [b.op("multiply", b.op("multiply", g, b.constant(0.0)), b.constant(2.0)),
            b.op("multiply", b.op("divide", g, b.constant(np.inf)), b.constant(2.0))]
    graph = b.returning(*outs)
    assert len(ops(optimize(graph))) == 4


def test_rewritten_nodes_keep_name_source_and_provenance():
    b = Build()
    x = b.input()
    forward = b.op("sin", x, node_name="h")
    b.graph[forward].source = ir.SourceLocation("model.py", 3, "f")
    twice = b.op("transpose", b.op("transpose", forward, axes=(0,)), axes=(0,),
                 meta={"adjoint_of": forward})
    graph = b.returning(b.op("multiply", twice, b.constant(2.0), node_name="d_h",
                             meta={"adjoint_of": forward}))
    result = optimize(graph)
    out = result[result.outputs[0]]
    assert (out.op, out.name, out.meta["adjoint_of"]) == ("multiply", "d_h", 1)
    assert result[1].name == "h" and result[1].source.line == 3


# --- optimize ---------------------------------------------------------------------

def test_optimize_reports_what_each_pass_did():
    b = Build()
    x = b.input()
    outs = [b.op("multiply", b.op("sin", x), b.constant(1.0)), b.op("sin", x)]
    b.op("cos", x)
    graph = b.returning(*outs)
    stats = optimize(graph).stats
    assert (stats["ops_before"], stats["ops_after"]) == (4, 1)
    assert stats["eliminate_dead_code"] >= 1 and stats["simplify"] == 1
    assert stats["eliminate_common_subexpressions"] == 1
    clean = optimize(optimize(graph))
    assert clean.stats["rounds"] == 1 and all(clean.stats[name] == 0 for name in PASS_NAMES)


def adjoint_graphs(case, dtype=np.float64):
    """The case's first-order adjoint graph (seeded with ones) and the adjoint of that
    (seeded with random cotangents), as ``Derivatives`` in the gradient table builds them."""
    tensors = [tracer.constant(a) for a in case.arrays(dtype)]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        case.fn(*tensors)
    graph = tape.graph
    inputs = [n.id for n in graph if n.kind == "input"]
    target = [n.id for n in graph if n.kind == "op"][-1]
    first = ir.adjoint(graph, [target], inputs)
    grads = [o for o in first.outputs if o is not None]
    rng = np.random.default_rng(0)
    seeds = [rng.standard_normal(first[o].shape).astype(first[o].dtype) for o in grads]
    return [first, ir.adjoint(first, grads, inputs, seeds=seeds)] if grads else [first]


def check_optimized(graph, rtol):
    before = snapshot(graph)
    optimized = optimize(graph)
    assert snapshot(graph) == before
    assert_compact(optimized)
    assert optimized.stats["ops_after"] <= optimized.stats["ops_before"]
    assert len(optimized.outputs) == len(graph.outputs)
    assert_same_values(graph, optimized, rtol)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in rows()])
def test_optimized_adjoints_compute_the_same_to_second_order(case):
    for graph in adjoint_graphs(case):
        check_optimized(graph, rtol=1e-12)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in float32_rows()])
def test_optimized_float32_adjoints_keep_their_dtypes(case):
    for graph in adjoint_graphs(case, np.float32):
        check_optimized(graph, rtol=1e-5)


def kth_derivative_graph(k, s, v, W):
    """The adjoint graph giving the k-th derivative of ``sum(tanh(W @ (s * v)))`` by ``s``:
    the outermost of k nested tapes holds f and derivatives 1..k-1."""
    graph = kth_derivative(k, s, v, W)[0].graph
    target = [n.id for n in graph if n.kind == "op"][-1]
    return ir.adjoint(graph, [target], [n.id for n in graph if n.kind == "input"])


@pytest.mark.filterwarnings("ignore::tracer.GradientTapeWarning")
@pytest.mark.parametrize("s_shape", [(), (3,)])
def test_higher_derivatives_stay_small(s_shape):
    rng = np.random.default_rng(1)
    W, v, s = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=s_shape)
    for k, limit in zip(range(1, 5), (13, 24, 44, 86)):
        graph = kth_derivative_graph(k, s, v, W)
        optimized = optimize(graph)
        assert optimized.stats["ops_after"] <= limit
        assert_same_values(graph, optimized, rtol=1e-12)


def test_horner_forms_replace_arithmetic_only_where_it_is_no_longer_read():
    # sinc's second derivative reads the terms of a polynomial in several places;
    # rewriting one reader must not count arithmetic the others still need as saved.
    x = tracer.constant(np.array([0.0, 0.05, 0.7]))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        np.sum(np.sinc(x))
    first = ir.adjoint(tape.graph, [len(tape.graph) - 1], [0])
    second = ir.adjoint(first, [first.outputs[0]], [0], seeds=[np.ones(3)])
    graph = eliminate_common_subexpressions(eliminate_dead_code(second))
    rewritten = collect_polynomials(graph)
    assert op_count(rewritten) <= op_count(graph)
    assert_same_values(graph, rewritten, rtol=1e-12)


def op_count(graph):
    return sum(1 for node in graph if node.kind == "op")


def test_the_gradient_of_a_mean_square_is_one_scaled_product():
    x = tracer.constant(np.random.default_rng(0).normal(size=(8, 4)))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        np.mean(x ** 2)
    graph = tape.graph
    target = [n.id for n in graph if n.kind == "op"][-1]
    adjoint = ir.adjoint(graph, [target], [0])
    optimized = optimize(adjoint)
    assert ops(optimized) == ["multiply"]
    assert_same_values(adjoint, optimized)


def test_an_op_on_broadcast_constants_is_a_broadcast_of_a_small_constant():
    b = Build()
    x = b.input((256, 4))
    spread = b.op("broadcast_to", b.constant(np.full((1, 1), 1.0 / 1024)), shape=(256, 4))
    graph = b.returning(b.op("multiply", b.op("multiply", spread, b.constant(2)), x))
    result = optimize(graph)
    assert ops(result) == ["multiply"]
    assert [np.shape(n.value) for n in result if n.kind == "constant"] == [()]
    assert_same_values(graph, result)
