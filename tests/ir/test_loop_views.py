"""Every view of a graph handles loops and branches: the text listing (bodies beneath
their node), the networkx view, DOT pictures (bodies as clusters), ``summary()``,
JSON round trips (and malformed nested documents refused), and ``tape.explain``
on tapes with loops."""

import json
import re
import shutil

import numpy as np
import pytest

import ir
import tracer
from ir.graph import Graph
from ir.json.format import MAX_BODY_DEPTH, MAX_NODES, GraphFormatError
from ir.loops.body import Body
from ir.pictures.views import flattened, picture
from recorded import recorded_graph
from test_json import FIELDS, structure
from test_views import parse, validate

K = np.array([0.7, 1.3])
Y0 = np.array([1.0, -0.5])


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
    return recorded_graph(loss, arrays)


def loop_node(graph, op="scan"):
    return next(n for n in graph if n.op == op)


# --- text listing ------------------------------------------------------------------

INTEGRATOR_LISTING = """\
x: f64[2] = input
x_1: f64[2] = input
t1: (f64[2], f64[40], f64[40,2]) = scan x_1 x length=40 keep=(carry,)
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
    assert "= while_loop x_1 0 x x keep=(carry,) trips=4\n  test: inputs x, x_1, data\n" in text
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
        "    t1: (f64[2], f64[3,2], f64[3,2], f64[3,2]) = scan carry data length=3 keep=(carry, t1)\n"
        "      body: carries carry; invariants data\n"
        "        carry: f64[2] = input\n")
    assert "\n        return t2, carry\n    t2: f64[2] = result t1 index=0\n" in text


def test_the_adjoint_of_a_loop_lists_its_reverse_loop():
    graph, target, inputs = recorded("integrator")
    adjoint = ir.adjoint(graph, [target], inputs)
    assert re.search(r"= scan t\d+ data t\d+ t\d+ x length=40 reverse=True +# adjoint of t1 "
                     r"\(test_loop_views\.py:\d+\)\n  body: carries d_carry, d_data; xs d_y, ",
                     str(adjoint))


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
    graph, _, _ = recorded_graph(lambda x: np.sum(np.sin(x) * x), [np.ones(3)])
    result = graph.summary()
    assert result.loops == result.body_ops == {}
    assert "loop" not in str(result) and "bodies" not in str(result)


# --- JSON ----------------------------------------------------------------------------

def same_graph(loaded, original):
    """Every field of every node equal in type and value, bodies compared the same way."""
    assert loaded.outputs == list(original.outputs) and len(loaded) == len(original)
    for got, want in zip(loaded, original):
        for field in FIELDS:
            if field != "params":
                assert structure(getattr(got, field)) == structure(getattr(want, field))
        assert list(got.params) == list(want.params)
        for key, value in want.params.items():
            if isinstance(value, Body):
                body = got.params[key]
                assert isinstance(body, Body)
                assert (body.inputs, body.carries, body.xs) == (value.inputs, value.carries,
                                                                value.xs)
                same_graph(body.graph, value.graph)
            else:
                assert structure(got.params[key]) == structure(value)


def gradients(graph, target, inputs):
    return ir.evaluate(ir.adjoint(graph, [target], inputs))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_graph_with_loops_round_trips_exactly_and_differentiates_the_same(name):
    graph, target, inputs = recorded(name)
    text = graph.to_json()
    loaded = ir.Graph.from_json(text)
    same_graph(loaded, graph)
    assert loaded.to_json() == text
    assert str(loaded) == str(graph)
    loop = loop_node(loaded, "while_loop" if name == "newton" else "scan")
    assert loop.dtype == np.dtype(object) and loop.shape == ()
    for got, want in zip(gradients(loaded, target, inputs), gradients(graph, target, inputs)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["branch_in_loop", "nested", "newton"])
def test_the_adjoint_of_a_loop_round_trips_and_evaluates_the_same(name):
    graph, target, inputs = recorded(name)
    adjoint = ir.adjoint(graph, [target], inputs)
    loaded = ir.Graph.from_json(adjoint.to_json())
    same_graph(loaded, adjoint)
    for got, want in zip(ir.evaluate(loaded), ir.evaluate(adjoint)):
        np.testing.assert_array_equal(got, want)


def document(name="branch_in_loop"):
    return json.loads(recorded(name)[0].to_json())


def first(nodes, op):
    return next(n for n in nodes if n["op"] == op)


def loaded(data, **options):
    return ir.Graph.from_json(json.dumps(data), **options)


def refused(data, message, **options):
    with pytest.raises(GraphFormatError, match=message):
        loaded(data, **options)


def body_of(data, op="scan"):
    return first(data["nodes"], op)["params"]["body"]


def test_a_body_outside_a_loops_body_params_is_refused():
    data = document()
    scan = first(data["nodes"], "scan")
    scan["params"]["steps"] = scan["params"].pop("body")
    refused(data, r"node 2 params: a scan node holds the bodies \['body'\], not \['steps'\]")
    data = document()
    first(data["nodes"], "power")["params"]["body"] = body_of(data)
    refused(data, r"a power node holds the bodies \[\], not \['body'\] \(bodies are params "
                  r"of cond, custom_vjp, scan, while_loop nodes only\)")
    data = document()
    data["nodes"][0]["meta"]["body"] = body_of(data)
    refused(data, r"node 0 meta\['body'\]: a body is a param of a loop or branch node")
    data = document()
    body_of(data)["graph"]["nodes"][6]["params"]["false"] = 3
    refused(data, r"node 2 params\['body'\] node 6 params: a cond node holds the bodies "
                  r"\['true', 'false'\], not \['true'\]")


@pytest.mark.parametrize("change, message", [
    (lambda b: b.update(inputs=[1, 5]), r"inputs: node 1 is a op node; a body's inputs are "
                                        r"input nodes"),
    (lambda b: b.update(inputs=[0, 99]), r"inputs: 99 is not a node of the body"),
    (lambda b: b.update(inputs=[0, True]), r"inputs: True is not a node of the body"),
    (lambda b: b.update(inputs=[0, 0]), r"inputs: a node is named twice"),
    (lambda b: b.update(carries=3), r"3 carries and 0 xs do not fit its 2 inputs"),
    (lambda b: b.update(xs=-1), r"1 carries and -1 xs do not fit"),
    (lambda b: b.update(carries="1"), r"carries: expected an integer, not str"),
    (lambda b: b["graph"].update(outputs=[None, 8]), r"never null"),
    (lambda b: b["graph"].update(outputs=[]), r"each of its 1 carries"),
    (lambda b: b.update(graph=[]), r"params\['body'\] graph: expected an object"),
    (lambda b: b.update(extra=1), r"unknown fields \['extra'\]"),
    (lambda b: b["graph"]["nodes"][1].update(id=2), r"params\['body'\] node 1: ids must count "
                                                    r"up from 0 \(found 2\)"),
    (lambda b: b["graph"]["nodes"][1].update(op="nope"), r"node 1: unknown primitive 'nope'"),
    (lambda b: b["graph"]["nodes"][1].update(op="custom_gradient"),
     r"node 1: custom_gradient nodes cannot be read from JSON"),
    (lambda b: b["graph"]["nodes"][1].update(inputs=[4]), r"node 1 inputs: 4 is not an "
                                                          r"earlier node's id"),
], ids=lambda value: value if isinstance(value, str) else "")
def test_malformed_bodies_are_refused_saying_where_and_what(change, message):
    data = document()
    change(body_of(data))
    refused(data, message)


def test_kept_nodes_must_be_nodes_of_the_body():
    data = document()
    first(data["nodes"], "scan")["params"]["keep"] = {"$": "tuple", "items": [0, 40]}
    refused(data, r"params\['keep'\]: expected a tuple of ids of nodes of the loop's body, "
                  r"got \(0, 40\)")
    data = document()
    first(data["nodes"], "scan")["params"]["keep"] = [0]
    refused(data, r"got \[0\]")


@pytest.mark.parametrize("op, kind, shape", [
    ("power", "op", r"\[2\]"), ("input", "input", r"\[2\]")])
def test_the_object_dtype_belongs_only_to_nodes_with_several_results(op, kind, shape):
    data = document()
    first(data["nodes"], op)["dtype"] = "object"
    refused(data, rf"dtype 'object' belongs only to op nodes of shape \[\] with several "
                  rf"results \(cond, packed, scan, while_loop\), not to this {kind} node "
                  rf"'{op}' of shape {shape}")
    data = document()
    first(data["nodes"], "scan")["shape"] = [1]
    refused(data, r"not to this op node 'scan' of shape \[1\]")


def nested_bodies(depth):
    """A document of a scan whose body holds a scan, ``depth`` bodies deep."""
    def node(i, op, inputs=(), params=None, dtype="float64"):
        return {"id": i, "kind": "op" if inputs else "input", "op": op, "inputs": list(inputs),
                "params": params or {}, "shape": [], "dtype": dtype, "name": None,
                "source": None, "value": None, "meta": {}}

    def scan(body):
        return node(1, "scan", [0], {"body": body, "length": 2, "reverse": False,
                                     "keep": {"$": "tuple", "items": []},
                                     "recompute": False}, "object")

    graph = {"nodes": [node(0, "input")], "outputs": [0]}
    for _ in range(depth):
        body = {"$": "body", "graph": graph, "inputs": [0], "carries": 1, "xs": 0}
        result = node(2, "result", [1], {"index": 0, "shape": {"$": "tuple", "items": []},
                                         "dtype": {"$": "dtype", "name": "float64"}})
        graph = {"nodes": [node(0, "input"), scan(body), result], "outputs": [2]}
    return {"format": "tapegen.graph", "version": 1, **graph}


def test_bodies_nest_up_to_the_limit_and_no_deeper():
    graph = loaded(nested_bodies(MAX_BODY_DEPTH))
    assert ir.evaluate(graph, {0: np.float64(1.5)}) == [1.5]
    with pytest.raises(GraphFormatError, match=f"bodies nested deeper than {MAX_BODY_DEPTH}"):
        loaded(nested_bodies(MAX_BODY_DEPTH + 1))
    deeper = Graph()
    deeper.add_node("input", "input", (), {}, (), np.float64)
    deeper.add_node("op", "scan", (0,), {"body": Body(graph, [0], 1, 0), "length": 2,
                                         "reverse": False, "keep": (), "recompute": False},
                    (), object)
    with pytest.raises(GraphFormatError, match=f"bodies nested deeper than {MAX_BODY_DEPTH}"):
        deeper.to_json()


def test_the_nodes_of_bodies_count_towards_the_documents_limit():
    data = document()
    total = len(data["nodes"]) + len(body_of(data)["graph"]["nodes"]) + sum(
        len(n["params"][k]["graph"]["nodes"]) for n in body_of(data)["graph"]["nodes"]
        if n["op"] == "cond" for k in ("true", "false"))
    assert len(loaded(data, max_nodes=total)) == len(data["nodes"])
    refused(data, rf"the document holds more than {total - 1} nodes, its bodies' included "
                  r"\(pass a larger max_nodes to read it\)", max_nodes=total - 1)
    assert MAX_NODES >= 2**20


# --- tape.explain ------------------------------------------------------------------

def explained(loss, x=np.array([0.5, 1.0])):
    """``tape.explain(loss(x), x)`` on a tape watching ``x``, and the gradient."""
    x = tracer.constant(x)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        target = loss(x)
    return tape.explain(target, x), tape.gradient(target, x)


def line_of(function, offset):
    return f"test_loop_views.py:{function.__code__.co_firstlineno + offset}"


def test_loops_on_the_path_do_not_hide_a_connected_gradient():
    for name, (loss, *arrays) in PROGRAMS.items():
        x = tracer.constant(arrays[0])
        with tracer.GradientTape() as tape:
            tape.watch(x)
            target = loss(x, *arrays[1:])
        assert tape.explain(target, x).reason == "connected", name


def test_a_gradient_cut_inside_a_loop_body_names_the_loop_and_the_op():
    def cut(x):
        final, _ = tracer.scan(lambda c, _: (tracer.stop_gradient(c) * 2.0, c), x,
                               length=3)
        return np.sum(final)
    explanation, gradient = explained(cut)
    assert not explanation.connected and explanation.reason == "cut_in_loop"
    np.testing.assert_array_equal(gradient, [0.0, 0.0])
    text = str(explanation)
    assert f"through the loop `scan` at {line_of(cut, 1)}, which gives the target its " \
           "final carry 0: inside its body, `stop_gradient` passes none on" in text
    assert str(explanation.location) == line_of(cut, 1)


def test_a_source_only_a_while_loops_test_reads_is_cut_in_the_test():
    def steps(x):
        return np.sum(tracer.while_loop(lambda c: np.sum(c) < np.sum(x) * 10.0,
                                        lambda c: c * 2.0, np.ones(2)))
    explanation, gradient = explained(steps)
    assert explanation.reason == "cut_in_loop" and gradient is None
    assert "the loop `while_loop` at" in str(explanation)
    assert "inside its test, `less` passes none on (it returns booleans)" in str(explanation)


def test_a_cut_in_a_nested_loop_is_found_inside_the_outer_body():
    def cut(x):
        def outer(c, _):
            inner, _ = tracer.scan(lambda d, _: (tracer.stop_gradient(d), d), c, length=2)
            return inner + 1.0, c
        return np.sum(tracer.scan(outer, x, length=3)[0])
    explanation, _ = explained(cut)
    assert explanation.reason == "cut_in_loop"
    assert f"the loop `scan` at {line_of(cut, 4)}, which gives the target its final carry 0: " \
           f"inside its body, the loop `scan` at {line_of(cut, 2)} passes none to its final " \
           "carry 0: inside its body, `stop_gradient` passes none on" in str(explanation)
    assert str(explanation.location) == line_of(cut, 2)


def test_an_integer_result_of_a_loop_is_named_by_what_it_is_to_the_loop():
    def argmaxes(x):
        _, ys = tracer.scan(lambda c, _: (c * 2.0, np.argmax(c)), x, length=3)
        return np.sum(ys) * 1.0
    explanation, gradient = explained(argmaxes)
    assert explanation.reason == "integer_path" and gradient is None
    assert "goes through the stacked output 0 of the loop `scan` at " \
           f"{line_of(argmaxes, 1)}, which its body computes with `argmax`, of dtype " \
           "int64" in str(explanation)


def test_a_loop_result_the_source_does_not_reach_is_unconnected():
    def count(x):
        i, _ = tracer.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0),
                                 (np.asarray(0), x))
        return i * 1.0
    assert explained(count)[0].reason == "unconnected"


def test_a_branch_chosen_by_the_source_breaks_at_the_comparison():
    def choose(x):
        return tracer.cond(np.sum(x) > 0, lambda: tracer.constant(1.0),
                           lambda: tracer.constant(2.0))
    explanation, _ = explained(choose)
    assert explanation.reason == "no_gradient_op" and "`greater`" in str(explanation)
    assert str(explanation.location) == line_of(choose, 1)


def test_a_value_that_escapes_before_a_loop_is_named_at_its_conversion():
    x, k = tracer.constant(np.array([0.5, 1.0])), tracer.constant(np.array([0.9, 1.1]))

    def escape():
        start = np.asarray(x)
        final, _ = tracer.scan(lambda c, _: (c * k, c), start, length=3)
        return np.sum(final)
    with tracer.GradientTape() as tape:
        tape.watch([x, k])
        with pytest.warns(tracer.GradientTapeWarning, match="converted to a numpy array"):
            target = escape()
    explanation = tape.explain(target, x)
    assert explanation.reason == "escaped" and explanation.conversion == "np.asarray(t)"
    assert str(explanation.location) == line_of(escape, 1)


def test_a_gradient_cut_in_both_branches_names_the_branch():
    def cut(x):
        return np.sum(tracer.cond(tracer.constant(True), lambda: tracer.stop_gradient(x) * 2.0,
                                  lambda: tracer.stop_gradient(x)))
    explanation, gradient = explained(cut)
    assert explanation.reason == "cut_in_loop"
    np.testing.assert_array_equal(gradient, [0.0, 0.0])
    assert f"through the branch `cond` at {line_of(cut, 1)}, which gives the target its " \
           "result 0: inside its true branch, `stop_gradient` passes none on" in str(explanation)
