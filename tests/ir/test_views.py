"""DOT pictures and summaries of graphs: structure of the DOT text on small recordings
(nodes, edges, labels, styles, clusters, collapsed chains, quoting), checked by a
small validator written here, and summary numbers against hand counts."""

import re

import numpy as np

import ir
import tracer
from ir.optimize.passes import PASSES
from ir.pictures.views import AUTO_COLLAPSE, Summary, picture, summary, to_dot

QUOTED = r'"(?:[^"\\]|\\.)*"'
NODE_STATEMENT = re.compile(rf"^\s*({QUOTED}) \[(.*)\];$")
EDGE_STATEMENT = re.compile(rf"^\s*({QUOTED}) -> ({QUOTED})(?: \[label=({QUOTED})\])?;$")


def recorded(f, *shapes):
    """The forward graph of ``f`` on watched inputs named ``x``, ``y``..."""
    args = [tracer.constant(np.linspace(0.5, 1.5, int(np.prod(s))).reshape(s), name=n)
            for s, n in zip(shapes, "xyz")]
    with tracer.GradientTape() as tape:
        for a in args:
            tape.watch(a)
        f(*args)
    return tape.graph


def six_nodes(x):
    return np.sum(np.tanh(np.sin(x) * 2.0) * x)


def two_lines(x):
    s = np.sin(x) * x
    return np.exp(s) + s


def adjoint_of(graph, optimize=False):
    target = [n.id for n in graph if n.kind == "op"][-1]
    sources = [n.id for n in graph if n.kind == "input"]
    result = ir.adjoint(graph, [target], sources)
    return ir.optimize(result) if optimize else result


def unquote(text):
    """The string a DOT quoted string stands for (``\\n`` a newline)."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text[1:-1])


def validate(dot):
    """A minimal DOT check: one ``digraph`` block, braces balanced outside quoted
    strings, every quoted string closed, every statement ending with ';'."""
    lines = dot.splitlines()
    assert lines[0] == "digraph tapegen {" and lines[-1] == "}"
    depth = 0
    for line in lines:
        bare = re.sub(QUOTED, '""', line)
        assert '"' not in bare.replace('""', ""), f"unclosed quote: {line}"
        depth += bare.count("{") - bare.count("}")
        assert depth >= 0
        stripped = bare.strip()
        if not (stripped.endswith("{") or stripped == "}"):
            assert stripped.endswith(";"), f"statement without ';': {line}"
    assert depth == 0


def parse(dot):
    """Node statements as ``{name: attribute text}`` and edges as ``(tail, head, label)``."""
    validate(dot)
    nodes, edges = {}, []
    for line in dot.splitlines():
        node = NODE_STATEMENT.match(line)
        edge = EDGE_STATEMENT.match(line)
        if edge:
            label = edge.group(3)
            edges.append((unquote(edge.group(1)), unquote(edge.group(2)),
                          None if label is None else unquote(label)))
        elif node and not line.strip().startswith(("node ", "edge ")):
            nodes[unquote(node.group(1))] = node.group(2)
    return nodes, edges


def label(attributes):
    return unquote(re.match(rf"label=({QUOTED})", attributes).group(1))


def test_six_node_recording_draws_every_node_and_edge():
    nodes, edges = parse(to_dot(recorded(six_nodes, (4,))))
    assert list(nodes) == ["x", "t1", "t2", "t3", "t4", "t5"]
    assert label(nodes["x"]) == "x\ninput\nf64[4]"
    assert label(nodes["t1"]) == "t1 = sin\nf64[4]"
    assert label(nodes["t2"]) == "t2 = multiply(·, 2.0)\nf64[4]"
    assert label(nodes["t5"]) == "t5 = sum\nf64[]"
    assert edges == [("x", "t1", None), ("t1", "t2", "0"), ("t2", "t3", None),
                     ("t3", "t4", "0"), ("x", "t4", "1"), ("t4", "t5", None)]


def test_roles_are_styled_apart_and_the_last_op_is_highlighted():
    graph = recorded(six_nodes, (4,))
    graph.add_node("constant", "constant", (), {}, (4,), np.float64, name="ones",
                   value=np.ones(4))
    nodes, _ = parse(to_dot(graph))
    assert "shape=box" in nodes["x"] and "#cfe2ff" in nodes["x"]
    assert "#eeeeee" in nodes["ones"]
    assert all("ellipse" in nodes[f"t{i}"] for i in range(1, 6))
    assert [n for n, attrs in nodes.items() if "penwidth" in attrs] == ["t5"]


def test_shapes_can_be_left_out():
    nodes, _ = parse(to_dot(recorded(six_nodes, (4,)), shapes=False))
    assert label(nodes["t1"]) == "t1 = sin"


def test_adjoint_nodes_are_dashed_and_outputs_highlighted():
    graph = adjoint_of(recorded(six_nodes, (4,)))
    names = graph.names()
    nodes, edges = parse(to_dot(graph))
    adjoint = {names[n.id] for n in graph if n.kind == "op" and "adjoint_of" in n.meta}
    dashed = {name for name, attrs in nodes.items() if "dashed" in attrs}
    assert adjoint and dashed == adjoint
    assert [n for n, attrs in nodes.items() if "penwidth" in attrs] == [names[graph.outputs[0]]]
    drawn = sum(1 for n in graph for i in n.inputs if not _scalar_constant(graph[i]))
    assert len(edges) == drawn


def _scalar_constant(node):
    return node.kind == "constant" and np.ndim(node.value) == 0


def test_clusters_group_op_nodes_by_statement():
    graph = recorded(two_lines, (3,))
    assert "subgraph" not in to_dot(graph)
    dot = to_dot(graph, cluster_by_line=True)
    validate(dot)
    clusters = re.findall(rf'subgraph "cluster_\d+" {{\n    label=({QUOTED});', dot)
    first = two_lines.__code__.co_firstlineno
    assert [unquote(c) for c in clusters] == [
        f"test_views.py:{first + 1}  s = np.sin(x) * x",
        f"test_views.py:{first + 2}  return np.exp(s) + s"]
    assert dot.count('"t1" [') == dot.count('"t3" [') == 1


def test_adjoint_clusters_follow_the_forward_statement():
    graph = adjoint_of(recorded(two_lines, (3,)), optimize=True)
    dot = to_dot(graph, cluster_by_line=True)
    labels = [unquote(c) for c in re.findall(rf"label=({QUOTED});", dot)]
    assert any(c.startswith("adjoint of test_views.py:") for c in labels)


def long_chain(x):
    for _ in range(AUTO_COLLAPSE):
        x = np.sin(x)
    return np.sum(x * 3.0)


def test_long_chains_collapse_automatically():
    graph = recorded(long_chain, (2,))
    full, _ = parse(to_dot(graph, collapse_chains=False))
    nodes, edges = parse(to_dot(graph))
    assert len(full) == len(graph) - 1
    last = f"t{AUTO_COLLAPSE + 2}"
    assert list(nodes) == ["x", last]
    hidden = AUTO_COLLAPSE + 2 - 5
    assert label(nodes[last]) == (f"t1 … {last} = sin → sin → sin → … {hidden} more"
                                  " → multiply(·, 3.0) → sum\nf64[]")
    assert "penwidth" in nodes[last]
    assert edges == [("x", last, None)]


def test_chains_stop_at_shared_values_and_statements():
    graph = recorded(two_lines, (3,))
    assert len(parse(to_dot(graph, collapse_chains=True))[0]) == len(graph)
    nodes, _ = parse(to_dot(recorded(six_nodes, (4,)), collapse_chains=True))
    assert list(nodes) == ["x", "t3", "t4", "t5"]


def test_dot_is_deterministic():
    first, second = recorded(two_lines, (3,)), recorded(two_lines, (3,))
    for options in ({}, {"cluster_by_line": True}, {"collapse_chains": True}):
        assert to_dot(first, **options) == to_dot(second, **options) == to_dot(first, **options)


def odd_statement(x):
    tag = 'say "hi" \\ {'; return np.sin(x) if tag else x


def test_odd_file_names_and_statements_are_escaped():
    graph = recorded(odd_statement, (2,))
    graph.add_node("op", "cos", (0,), {}, (2,), np.float64,
                   source=ir.SourceLocation('dir\\we"ird {}.py', 7, "f"))
    dot = to_dot(graph, cluster_by_line=True)
    labels = [unquote(c) for c in re.findall(rf"label=({QUOTED});", dot)]
    line = odd_statement.__code__.co_firstlineno + 1
    statement = """tag = 'say "hi" \\\\ {'; return np.sin(x) if tag else x"""
    assert labels[0] == f"test_views.py:{line}  {statement}"
    assert labels[1] == 'dir\\we"ird {}.py:7'
    assert r'label="dir\\we\"ird {}.py:7";' in dot
    assert len(parse(dot)[0]) == 3


def test_the_dot_text_draws_the_picture():
    """``picture`` is what every drawing shows (``ir.pictures.render`` draws it with matplotlib):
    the DOT text must declare exactly its nodes, labels, roles and edges."""
    graph = adjoint_of(recorded(two_lines, (3,)), optimize=True)
    for options in ({}, {"cluster_by_line": True, "collapse_chains": True}):
        drawn = picture(graph, **options)
        nodes, edges = parse(to_dot(graph, **options))
        assert {n.name: n.label for n in drawn.nodes} == {n: label(a) for n, a in nodes.items()}
        assert {n.name for n in drawn.nodes if n.role == "adjoint"} == {
            n for n, attrs in nodes.items() if "dashed" in attrs}
        assert [n.name for n in drawn.nodes if n.output] == [
            n for n, attrs in nodes.items() if "penwidth" in attrs]
        assert [(e.tail, e.head, e.label) for e in drawn.edges] == edges
    clusters = picture(graph, cluster_by_line=True).clusters
    assert clusters and all(c.members for c in clusters)


def test_summary_of_a_recording_matches_hand_counts():
    result = summary(recorded(six_nodes, (4,)))
    assert isinstance(result, Summary)
    assert result.nodes == 7 and result.ops == 5
    assert result.by_kind == {"constant": 1, "input": 1, "op": 5}
    assert result.by_op == {"multiply": 2, "sin": 1, "sum": 1, "tanh": 1}
    assert result.value_bytes == 4 * 8
    assert result.depth == 5
    assert result.adjoint_nodes == 0 and result.optimization is None
    text = str(result)
    assert "7 nodes: 1 constant, 1 input, 5 op" in text
    assert "ops: multiply 2, sin 1, sum 1, tanh 1" in text
    assert "depth: 5 ops" in text and "optimisation" not in text


def test_summary_counts_array_bytes_but_not_python_scalars():
    graph = ir.Graph()
    graph.add_node("input", "input", (), {}, (3, 2), np.float32, value=np.ones((3, 2), np.float32))
    graph.add_node("constant", "constant", (), {}, (), np.float64, value=2.0)
    graph.add_node("constant", "constant", (), {}, (), np.int64, value=np.int64(3))
    assert summary(graph).value_bytes == 24 + 0 + 8
    assert summary(graph).depth == 0


def test_summary_of_an_optimised_adjoint_gives_before_and_after():
    forward = recorded(six_nodes, (4,))
    raw = adjoint_of(forward)
    optimized = ir.optimize(raw)
    # Backward ops by hand: sum -> reshape, broadcast_to; x*t3 -> two multiplies;
    # tanh -> multiply, subtract, multiply; *2.0 -> multiply; sin -> cos, multiply;
    # and the add of x's two cotangents.
    assert summary(raw).ops == 5 + 11
    assert summary(raw).adjoint_nodes == sum(1 for n in raw if "adjoint_of" in n.meta)
    stats = summary(optimized).optimization
    assert stats["ops_before"] == 16
    assert stats["ops_after"] == summary(optimized).ops < 16
    passes = {k: v for k, v in stats.items()
              if k not in ("ops_before", "ops_after", "nodes_before", "nodes_after", "rounds")}
    assert set(passes) == {p.__name__ for p in PASSES}  # each pass, by name
    assert {"eliminate_dead_code", "eliminate_common_subexpressions", "simplify",
            "fold_constants", "collect_polynomials"} <= set(passes)
    assert f"optimisation: 16 -> {stats['ops_after']} ops" in str(summary(optimized))
