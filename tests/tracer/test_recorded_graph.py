"""``tape.graph``: what was recorded, as an ``ir.Graph`` and a networkx MultiDiGraph."""

import inspect
import os

import networkx
import numpy as np
import pytest

import ir
import tracer
from tracer import GradientTape


def record_square_model():
    """x*x, a matmul with a variable, a reduction and a constant: one op per line."""
    x = tracer.constant([1.0, 2.0], name="x")
    w = tracer.Variable([[1.0], [2.0]], name="w")
    with GradientTape() as tape:
        tape.watch(x)
        first = inspect.currentframe().f_lineno + 1
        y = x * x
        z = y @ w
        s = np.sum(z, axis=0, keepdims=True)
        out = s + 1.0
    return tape, first, out


def test_graph_is_an_ir_graph_with_a_networkx_view():
    tape, _, _ = record_square_model()
    graph = tape.graph
    assert isinstance(graph, ir.Graph)
    assert isinstance(graph.nx, networkx.MultiDiGraph)
    assert graph.nx.number_of_nodes() == len(graph)
    assert networkx.is_directed_acyclic_graph(graph.nx)


def test_leaves_are_nodes_too():
    tape, _, _ = record_square_model()
    leaves = {(n.kind, n.name) for n in tape.graph if n.kind != "op"}
    assert leaves == {("input", "x"), ("variable", "w"), ("constant", None)}
    x_node = next(n for n in tape.graph if n.name == "x")
    np.testing.assert_array_equal(x_node.value, [1.0, 2.0])


def test_op_nodes_hold_primitive_inputs_params_shape_dtype_and_source():
    tape, first, _ = record_square_model()
    graph = tape.graph
    ops = [n for n in graph if n.kind == "op"]
    assert [n.op for n in ops] == ["multiply", "matmul", "sum", "add"]
    square, matmul, total, add = ops
    x_id = next(n.id for n in graph if n.name == "x")
    w_id = next(n.id for n in graph if n.name == "w")
    assert square.inputs == (x_id, x_id)
    assert matmul.inputs == (square.id, w_id)
    assert total.params == {"axis": (0,), "keepdims": True}
    assert (total.shape, total.dtype) == ((1,), np.dtype(np.float64))
    assert square.shape == (2,)
    assert [n.source.line for n in ops] == [first, first + 1, first + 2, first + 3]
    assert all(n.source.file == __file__ for n in ops)
    assert all(n.source.function == "record_square_model" for n in ops)
    assert square.source.text == "y = x * x"


def test_an_input_used_twice_gives_two_edges_with_their_positions():
    tape, _, _ = record_square_model()
    graph = tape.graph
    x_id = next(n.id for n in graph if n.name == "x")
    square = next(n for n in graph if n.op == "multiply")
    edges = graph.nx.get_edge_data(x_id, square.id)
    assert sorted(e["arg"] for e in edges.values()) == [0, 1]
    assert graph.nx.nodes[square.id]["op"] == "multiply"
    assert graph.nx.nodes[square.id]["inputs"] == (x_id, x_id)


def test_node_ids_are_in_evaluation_order():
    tape, _, _ = record_square_model()
    for node in tape.graph:
        assert all(i < node.id for i in node.inputs)


def test_printed_graph_is_a_compact_deterministic_listing():
    tape, first, _ = record_square_model()
    name = os.path.basename(__file__)

    def op_line(text, offset):
        return f"{text:<48}  # {name}:{first + offset}"

    expected = [
        "x: f64[2] = input",
        "w: f64[2,1] = variable",
        op_line("t1: f64[2] = multiply x x", 0),
        op_line("t2: f64[1] = matmul t1 w", 1),
        op_line("t3: f64[1] = sum t2 axis=(0,) keepdims=True", 2),
        op_line("t4: f64[1] = add t3 1.0", 3),
    ]
    assert str(tape.graph).splitlines() == expected
    assert str(record_square_model()[0].graph) == str(tape.graph)


def test_variable_versions_are_separate_leaves():
    v = tracer.Variable(2.0, name="v")
    with GradientTape() as tape:
        y1 = v * v
        v.assign(3.0)
        y2 = v * v
        y1 + y2
    variables = [n for n in tape.graph if n.kind == "variable"]
    assert [float(n.value) for n in variables] == [2.0, 3.0]
    assert "v_1: f64[] = variable" in str(tape.graph)


def test_a_watched_intermediate_is_its_op_node_not_a_second_input():
    x = tracer.constant(3.0, name="x")
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.watch(y)
        y + 1.0
    inputs = [n for n in tape.graph if n.kind == "input"]
    assert [n.name for n in inputs] == ["x"]
    add = next(n for n in tape.graph if n.op == "add")
    assert tape.graph[add.inputs[0]].op == "multiply"


def test_a_persistent_tape_in_context_records_the_gradient_ops():
    x = tracer.constant(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        before = len(tape.graph)
        with pytest.warns(tracer.GradientTapeWarning):
            tape.gradient(y, x)
    assert len(tape.graph) > before


def test_graph_of_a_consumed_tape_is_an_error():
    x = tracer.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="one set of gradients"):
        tape.graph
