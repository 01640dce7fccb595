"""Every view of a graph handles loops and branches: the text listing (bodies beneath
their node), the networkx view, DOT pictures (bodies as clusters), ``summary()``,
JSON round trips (and malformed nested documents refused), and ``tape.explain``
on tapes with loops."""

import re
import shutil

import numpy as np
import pytest

import ir
import tracer
from ir.pictures.views import flattened, picture
from test_views import parse, validate

K = np.array([0.7, 1.3])
Y0 = np.array([1.0, -0.5])


def record(loss, *arrays):
    """The recording of ``loss`` on watched tensors of ``arrays``: graph, target id and
    the ids of the inputs."""
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        loss(*tensors)
    graph = tape.graph
    target = [n.id for n in graph if n.kind == "op"][-1]
    return graph, target, [n.id for n in graph if n.kind == "input"]


def integrator(k, y0):
    def step(y, _):
        y = y + 0.05 * (np.sin(y) - k * y)
        return y, np.sum(y)
    final, ys = tracer.scan(step, y0, length=40)
    return np.sum(final * final) + np.sum(ys) / 40


def rnn(w, xs):
    final, ys = tracer.scan(lambda h, x: (np.tanh(w @ h + x), h * h), np.zeros(3), xs)
    return np.sum(final) + np.sum(ys[1:])


def newton(a, x0):
    x, n = tracer.while_loop(lambda x, n: np.max(np.abs(x * x - a)) > 1e-9,
                             lambda x, n: (0.5 * (x + a / x), n + 1), (x0, np.asarray(0)))
    return np.sum(x * a)


def branch_in_loop(k, y0):
    def step(y, _):
        y = tracer.cond(np.sum(y * y) > 1.0, lambda: y * np.cos(k), lambda: y + k * 0.3)
        return y, y[0]
    final, ys = tracer.scan(step, y0, length=8)
    return np.sum(final ** 2) + np.sum(ys)


def nested(a, x0):
    def outer(c, _):
        c, cs = tracer.scan(lambda c, _: (np.sin(c * a), c), c, length=3)
        return c + 0.1, np.sum(cs)
    final, ys = tracer.scan(outer, x0, length=4)
    return np.sum(final) + np.sum(ys * ys)


PROGRAMS = {
    "integrator": (integrator, K, Y0),
    "rnn": (rnn, np.eye(3) * 0.5 + 0.1, np.linspace(-1, 1, 15).reshape(5, 3)),
    "newton": (newton, np.array([1.5, 0.5, 3.0]), np.array([2.0, 1.0, 1.5])),
    "branch_in_loop": (branch_in_loop, np.array([0.4, 0.9]), np.array([0.5, -0.2])),
    "nested": (nested, np.array([0.8, 1.1]), np.array([0.5, 0.2])),
}


def recorded(name):
    loss, *arrays = PROGRAMS[name]
    return record(loss, *arrays)


def loop_node(graph, op="scan"):
    return next(n for n in graph if n.op == op)


# --- text listing ------------------------------------------------------------------

INTEGRATOR_LISTING = """\
x: f64[2] = input
x_1: f64[2] = input
t1: (f64[2], f64[40], f64[40,2]) = scan x_1 x length=40 keep=(0,)
  body: carries carry; invariants data
    carry: f64[2] = input
    t1: f64[2] = sin carry
    data: f64[2] = input
    t2: f64[2] = multiply data carry
    t3: f64[2] = subtract t1 t2
    t4: f64[2] = multiply 0.05 t3
    t5: f64[2] = add carry t4
    t6: f64[] = sum t5
    return t5, t6
t2: f64[2] = result t1 index=0
t3: f64[40] = result t1 index=1
t4: f64[40,2] = result t1 index=2
t5: f64[2] = multiply t2 t2
t6: f64[] = sum t5
t7: f64[] = sum t3
t8: f64[] = divide t7 40
t9: f64[] = add t6 t8"""


def test_a_scan_is_listed_with_its_results_types_and_its_body_beneath():
    graph, _, _ = recorded("integrator")
    assert graph.to_text(source=False) == INTEGRATOR_LISTING


def test_listed_lines_keep_their_source_notes_inside_bodies():
    graph, _, _ = recorded("integrator")
    lines = str(graph).splitlines()
    assert lines[2].startswith("t1: (f64[2], f64[40], f64[40,2]) = scan x_1 x length=40")
    assert lines[2].endswith("test_loop_views.py:" + str(integrator.__code__.co_firstlineno + 4))
    assert re.fullmatch(r"    t1: f64\[2\] = sin carry +# test_loop_views\.py:\d+", lines[5])


def test_a_while_loop_lists_its_test_and_its_body_and_a_branch_its_two_branches():
    text = recorded("newton")[0].to_text(source=False)
    assert "= while_loop x_1 0 x x keep=(0,) trips=4\n  test: inputs x, x_1, data\n" in text
    assert "\n  body: carries carry, carry_1; invariants data\n" in text
    assert "t1: (f64[3], i64[], i64[], f64[4,3]) = while_loop" in text
    text = recorded("branch_in_loop")[0].to_text(source=False)
    assert "\n    t4: (f64[2]) = cond t3 data carry\n      true: inputs data, carry\n" in text
    assert "\n      false: inputs data, carry\n        data: f64[2] = input\n" in text
    assert "\n        return t2\n    t5: f64[2] = result t4 index=0\n" in text


def test_a_loop_inside_a_body_is_listed_one_level_deeper():
    text = recorded("nested")[0].to_text(source=False)
    inner = text.index("    t1: (f64[2], f64[3,2], f64[3,2], f64[3,2]) = scan carry data length=3")
    assert text[inner:].startswith(
        "    t1: (f64[2], f64[3,2], f64[3,2], f64[3,2]) = scan carry data length=3 keep=(0, 2)\n"
        "      body: carries carry; invariants data\n"
        "        carry: f64[2] = input\n")
    assert "\n        return t2, carry\n    t2: f64[2] = result t1 index=0\n" in text


def test_the_adjoint_of_a_loop_lists_its_reverse_loop():
    graph, target, inputs = recorded("integrator")
    adjoint = ir.adjoint(graph, [target], inputs)
    assert re.search(r"= scan t\d+ data t\d+ t\d+ x length=40 reverse=True +# adjoint of t1 "
                     r"\(test_loop_views\.py:\d+\)\n  body: carries seed, data; xs ", str(adjoint))


# --- networkx ----------------------------------------------------------------------

def test_the_networkx_view_keeps_bodies_in_params_with_views_of_their_own():
    graph, _, _ = recorded("branch_in_loop")
    view = graph.nx
    scan = loop_node(graph)
    assert view.number_of_nodes() == len(graph)
    body = view.nodes[scan.id]["params"]["body"]
    assert view.nodes[scan.id]["dtype"] == np.dtype(object)
    assert body.graph.nx.number_of_nodes() == len(body.graph)
    cond = loop_node(body.graph, "cond")
    true = body.graph.nx.nodes[cond.id]["params"]["true"]
    assert sorted(true.graph.nx.nodes) == sorted(n.id for n in true.graph)
    assert all(u in graph.nodes and v in graph.nodes for u, v, _ in view.edges)


# --- pictures ----------------------------------------------------------------------

def clusters(dot):
    """``{cluster id: (label, depth)}`` of the DOT text's subgraphs."""
    found, depth = {}, 0
    for line in dot.splitlines():
        opened = re.match(r'\s*subgraph "(cluster_[^"]*)" \{', line)
        if opened:
            depth += 1
            found[opened.group(1)] = depth
        elif line.strip() == "}":
            depth -= 1
    return found


def test_each_body_is_a_cluster_joined_to_its_loop_node_and_nested_bodies_nest():
    graph, _, _ = recorded("branch_in_loop")
    dot = graph.to_dot()
    validate(dot)
    nodes, _ = parse(dot)
    assert clusters(dot) == {"cluster_t1/body/": 1, "cluster_t1/body/t4/true/": 2,
                             "cluster_t1/body/t4/false/": 2}
    assert 'label="t1 body: carries carry; invariants data";' in dot
    assert 'label="t4 true: inputs data, carry";' in dot
    assert '"t1/body/return" -> "t1" [style=dashed];' in dot
    assert '"t1/body/t4/true/return" -> "t1/body/t4" [style=dashed];' in dot
    assert "(f64[2], f64[8], f64[8,2], bool[8])" in nodes["t1"]
    assert 'label="return t5, t6"' in nodes["t1/body/return"]
    assert len(nodes) == len(set(nodes))


def test_statement_clusters_inside_bodies_are_named_apart_from_the_graphs():
    dot = recorded("branch_in_loop")[0].to_dot(cluster_by_line=True)
    validate(dot)
    found = clusters(dot)
    assert found["cluster_0"] == 1 and found["cluster_t1/body/0"] == 2
    assert found["cluster_t1/body/t4/true/0"] == 3


def test_the_flattened_picture_holds_every_body_node_in_one_cluster_each():
    drawn = picture(recorded("nested")[0])
    flat = flattened(drawn)
    names = [n.name for n in flat.nodes]
    assert len(names) == len(set(names))
    assert {c.label for c in flat.clusters} == {
        "t1 body: carries carry; invariants data",
        "t1/body/t1 body: carries carry; invariants data"}
    assert ("t1/body/return", "t1") in {(e.tail, e.head) for e in flat.edges}
    members = [m for c in flat.clusters for m in c.members]
    assert len(members) == len(set(members)) == len(names) - len(drawn.nodes)


@pytest.mark.parametrize("engine", [
    pytest.param("dot", marks=pytest.mark.skipif(shutil.which("dot") is None,
                                                 reason="Graphviz is not installed")),
    "matplotlib"])
def test_both_engines_draw_a_graph_with_loops(tmp_path, engine):
    path = tmp_path / "loops.svg"
    recorded("branch_in_loop")[0].render(path, engine=engine, cluster_by_line=True)
    text = path.read_text()
    assert "return t5, t6" in text and "t4 true: inputs data, carry" in text


# --- summary -------------------------------------------------------------------------

def test_the_summary_counts_loops_and_the_ops_inside_bodies_apart():
    result = recorded("branch_in_loop")[0].summary()
    assert result.by_op == {"add": 1, "power": 1, "result": 4, "scan": 1, "sum": 2}
    assert result.loops == {"scan": 1} and result.body_loops == {"cond": 1}
    assert result.body_ops == {"add": 1, "cond": 1, "cos": 1, "getitem": 1, "greater": 1,
                               "multiply": 3, "result": 1, "sum": 1}
    text = str(result)
    assert "\nloops and branches: scan 1; inside bodies: cond 1\n" in text
    assert "\nops inside bodies, not counted above: 10 (add 1, cond 1, cos 1," in text


def test_a_summary_without_loops_says_nothing_of_them():
    graph, _, _ = record(lambda x: np.sum(np.sin(x) * x), np.ones(3))
    result = graph.summary()
    assert result.loops == result.body_ops == {}
    assert "loop" not in str(result) and "bodies" not in str(result)
