"""Pictures of graphs: SVG files written by both engines and read back as XML, so that
their structure (one box per drawn node, one arrow per drawn edge, the labels) is
checked against the graph's picture; PNG files by their signature; the default
engine with and without Graphviz; errors a user can act on; a 500-node recording
drawn small; and the pure layout on its own.

Tests of the ``dot`` engine skip when Graphviz is not installed; every other test
runs without it.
"""

import collections
import importlib.util
import inspect
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import ir
import tracer
from ir.pictures import render as rendering
from ir.pictures.layout import layered_layout
from ir.pictures.views import AUTO_COLLAPSE, picture
from test_views import adjoint_of, recorded, six_nodes, two_lines

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).resolve().parents[2]
HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot program is not installed")
ENGINES = [pytest.param("dot", marks=needs_dot), "matplotlib"]


# --- reading SVG ------------------------------------------------------------------

def groups(svg, prefix):
    """The ``<g>`` elements of a matplotlib SVG whose id starts with ``prefix``, by id."""
    root = ET.fromstring(svg)
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id", "").startswith(prefix)}


def text_of(element):
    """The lines of text drawn inside ``element``, joined by newlines."""
    return "\n".join(t.text for t in element.iter(f"{SVG}text") if t.text)


def words(text):
    """``text`` with its line breaks as spaces: the matplotlib engine wraps long labels."""
    return " ".join(text.split())


def drawn_structure(svg, engine):
    """``({node name: label words}, Counter of (tail, head))`` read from either engine's SVG.

    Graphviz titles each node group with its name and each edge group ``tail->head``;
    the matplotlib engine names groups ``node:NAME``, ``label:NAME`` and ``edge:...``.
    """
    if engine == "dot":
        root = ET.fromstring(svg)
        nodes, edges = {}, collections.Counter()
        for g in root.iter(f"{SVG}g"):
            title = g.findtext(f"{SVG}title")
            if g.get("class") == "node":
                nodes[title] = words(text_of(g))
            elif g.get("class") == "edge":
                edges[tuple(title.split("->"))] += 1
        return nodes, edges
    labels = groups(svg, "label:")
    names = [key[len("node:"):] for key in groups(svg, "node:")]
    nodes = {name: words(text_of(labels[f"label:{name}"])) for name in names}
    edges = collections.Counter(tuple(key[len("edge:"):].split("#")[0].split("->"))
                                for key in groups(svg, "edge:"))
    return nodes, edges


def expected_structure(graph, **options):
    """What a picture of ``graph`` must show: label words by name, and edges."""
    drawn = picture(graph, **options)
    return ({n.name: words(n.label) for n in drawn.nodes},
            collections.Counter((e.tail, e.head) for e in drawn.edges))


def svg_size_inches(svg):
    root = ET.fromstring(svg)
    return tuple(float(root.get(side).removesuffix("pt")) / 72 for side in ("width", "height"))


def deep_network(x):
    """About 500 nodes: ten layers, each a matmul and a chain of 24 elementwise steps."""
    for layer in range(10):
        x = x @ tracer.constant(np.full((3, 3), 0.1 * layer), name=f"W{layer}")
        for _ in range(24):
            x = np.sin(x) * 0.5
    return np.sum(x)


@pytest.fixture(scope="module")
def big_graph():
    graph = recorded(deep_network, (3, 3))
    assert 480 <= len(graph) <= 800
    return graph


# --- structure of the pictures ------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("make", [lambda: recorded(six_nodes, (4,)),
                                  lambda: adjoint_of(recorded(two_lines, (3,)), optimize=True)],
                         ids=["recording", "adjoint"])
def test_svg_has_a_box_per_drawn_node_and_an_arrow_per_edge(tmp_path, engine, make):
    graph = make()
    path = tmp_path / "graph.svg"
    graph.render(path, engine=engine)
    labels, edges = drawn_structure(path.read_text(encoding="utf-8"), engine)
    want_labels, want_edges = expected_structure(graph)
    assert labels == want_labels
    assert edges == want_edges
    assert sum(edges.values()) == sum(1 for n in graph for i in n.inputs
                                      if not (graph[i].kind == "constant"
                                              and np.ndim(graph[i].value) == 0))


@pytest.mark.parametrize("engine", ENGINES)
def test_collapsed_chains_and_clusters_are_drawn_as_the_dot_view_says(tmp_path, engine):
    graph = recorded(six_nodes, (4,))
    path = tmp_path / "collapsed.svg"
    graph.render(path, engine=engine, collapse_chains=True, cluster_by_line=True)
    labels, edges = drawn_structure(path.read_text(encoding="utf-8"), engine)
    assert (labels, edges) == expected_structure(graph, collapse_chains=True,
                                                 cluster_by_line=True)
    assert len(labels) < len(graph)


def test_matplotlib_marks_argument_positions_roles_and_clusters(tmp_path):
    graph = adjoint_of(recorded(two_lines, (3,)), optimize=True)
    svg = rendering.svg_text(graph, engine="matplotlib", cluster_by_line=True)
    drawn = picture(graph, cluster_by_line=True)
    positions = sorted(e.label for e in drawn.edges if e.label is not None)
    assert positions and sorted(text_of(g) for g in groups(svg, "arg:").values()) == positions
    nodes = groups(svg, "node:")
    for node in drawn.nodes:
        style = nodes[f"node:{node.name}"].find(f"{SVG}path").get("style")
        assert rendering.FILL_COLOURS[node.role] in style
        assert ("stroke-dasharray" in style) == (node.role == "adjoint")
        assert (rendering.OUTPUT_COLOUR in style) == node.output
    keys = groups(svg, "cluster:")
    assert [text_of(keys[f"cluster:{k}"]) for k in range(1, len(keys) + 1)] == [
        f"{k}  {c.label}" for k, c in enumerate(drawn.clusters, start=1)]
    tags = groups(svg, "tag:")
    assert {key[len("tag:"):] for key in tags} == {m for c in drawn.clusters for m in c.members}


def dollars(x):
    tag = "$x^2$ or $y$ \\ {"; return np.sin(x) if tag else x


@pytest.mark.parametrize("engine", ENGINES)
def test_statements_are_drawn_verbatim(engine):
    svg = rendering.svg_text(recorded(dollars, (2,)), engine=engine, cluster_by_line=True)
    line = dollars.__code__.co_firstlineno + 1
    statement = inspect.getsource(dollars).splitlines()[1].strip()
    texts = [t.text.replace("\N{NO-BREAK SPACE}", " ")
             for t in ET.fromstring(svg).iter(f"{SVG}text") if t.text]
    assert any(t.endswith(f"test_render.py:{line}  {statement}") for t in texts), texts


@pytest.mark.parametrize("engine", ENGINES)
def test_an_empty_graph_is_an_empty_picture(engine):
    svg = rendering.svg_text(ir.Graph(), engine=engine)
    assert ET.fromstring(svg).tag == f"{SVG}svg"


def test_edges_joining_the_same_nodes_are_drawn_apart():
    svg = rendering.svg_text(recorded(lambda x: np.sum(x * x), (3,)), engine="matplotlib")
    arrows = groups(svg, "edge:x->t1")
    assert set(arrows) == {"edge:x->t1", "edge:x->t1#2"}
    first, second = (g.find(f"{SVG}path").get("d") for g in arrows.values())
    assert first != second


def test_matplotlib_svg_is_deterministic():
    graph = recorded(two_lines, (3,))
    assert (rendering.svg_text(graph, engine="matplotlib")
            == rendering.svg_text(recorded(two_lines, (3,)), engine="matplotlib"))


@pytest.mark.parametrize("engine", ENGINES)
def test_png_files_are_written(tmp_path, engine):
    path = tmp_path / "graph.PNG"
    recorded(six_nodes, (4,)).render(path, engine=engine)
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    width, height = (int.from_bytes(data[k:k + 4], "big") for k in (16, 20))
    assert width > 50 and height > 100


# --- large graphs -------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_a_500_node_recording_is_drawn_with_few_boxes(tmp_path, engine, big_graph):
    path = tmp_path / "big.svg"
    big_graph.render(path, engine=engine)
    svg = path.read_text(encoding="utf-8")
    labels, edges = drawn_structure(svg, engine)
    assert len(big_graph) > AUTO_COLLAPSE
    assert (labels, edges) == expected_structure(big_graph)
    assert len(labels) <= len(big_graph) / 15
    width, height = svg_size_inches(svg)
    assert width <= 40 and height <= 40


def test_matplotlib_figures_are_bounded_and_text_shrinks_with_them(big_graph):
    svg = rendering.svg_text(big_graph, engine="matplotlib", collapse_chains=False)
    assert len(groups(svg, "node:")) == len(picture(big_graph, collapse_chains=False).nodes)
    width, height = svg_size_inches(svg)
    assert max(width, height) == pytest.approx(rendering.MAX_FIGURE_INCHES, rel=0.01)
    sizes = {float(size) for size in re.findall(r"font-size: ([\d.]+)px", svg)}
    assert sizes and max(sizes) < rendering.FONT_SIZE


# --- engines ------------------------------------------------------------------------

@pytest.fixture
def no_dot(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)


@pytest.fixture
def no_matplotlib(monkeypatch):
    """matplotlib as if not installed: an import of it fails, and it cannot be found."""
    for name in {"matplotlib", *(m for m in sys.modules if m.startswith("matplotlib."))}:
        monkeypatch.setitem(sys.modules, name, None)


def test_default_engine_is_matplotlib_without_dot(tmp_path, no_dot):
    assert rendering.default_engine() == "matplotlib"
    path = tmp_path / "graph.svg"
    graph = recorded(six_nodes, (4,))
    graph.render(path)
    assert drawn_structure(path.read_text(encoding="utf-8"), "matplotlib") == (
        expected_structure(graph))
    assert groups(graph._repr_svg_(), "node:")


def test_a_notebook_draws_a_large_graph_with_matplotlib(big_graph, monkeypatch):
    """Graphviz can take minutes on a large graph; a notebook should not wait for it."""
    engines = []
    monkeypatch.setattr(rendering, "svg_text",
                        lambda graph, engine=None, **options: engines.append(engine) or "<svg/>")
    big_graph._repr_svg_()
    recorded(six_nodes, (4,))._repr_svg_()
    assert engines == ["matplotlib", None]


@needs_dot
def test_default_engine_is_dot_when_installed():
    assert rendering.default_engine() == "dot"
    svg = recorded(six_nodes, (4,))._repr_svg_()
    assert "<!-- Generated by graphviz" in svg


def test_without_either_engine_the_error_says_what_to_install(tmp_path, no_dot, no_matplotlib):
    graph = recorded(six_nodes, (4,))
    with pytest.raises(rendering.RenderError, match="install Graphviz") as error:
        graph.render(tmp_path / "graph.svg")
    assert "pip install 'tapegen[viz]'" in str(error.value)
    assert graph._repr_svg_() is None
    with pytest.raises(rendering.RenderError, match=r"pip install 'tapegen\[viz\]'"):
        graph.render(tmp_path / "graph.svg", engine="matplotlib")
    assert not (tmp_path / "graph.svg").exists()


def test_asking_for_dot_without_it_says_how_to_get_it(tmp_path, no_dot):
    with pytest.raises(rendering.RenderError, match="install Graphviz.*engine='matplotlib'"):
        recorded(six_nodes, (4,)).render(tmp_path / "graph.svg", engine="dot")


posix_only = pytest.mark.skipif(os.name != "posix",
                                reason="the fake dot program is a shell script")


@pytest.fixture
def fake_dot(tmp_path, monkeypatch):
    """A ``dot`` program first on ``PATH`` that runs the given shell script body."""
    directory = tmp_path / "bin"
    directory.mkdir()

    def install(body):
        program = directory / "dot"
        program.write_text(f"#!/bin/sh\n{body}\n")
        program.chmod(0o755)
        monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ.get('PATH', '')}")
    return install


@posix_only
def test_failing_dot_reports_its_message(tmp_path, fake_dot):
    fake_dot('echo "Error: <stdin>: syntax error in line 3" >&2; exit 3')
    with pytest.raises(rendering.RenderError) as error:
        recorded(six_nodes, (4,)).render(tmp_path / "graph.svg", engine="dot")
    assert str(error.value) == ("Graphviz dot failed with exit status 3: "
                                "Error: <stdin>: syntax error in line 3")


@posix_only
def test_slow_dot_is_given_up_with_advice(tmp_path, fake_dot, monkeypatch):
    fake_dot("sleep 5")
    monkeypatch.setattr(rendering, "DOT_TIMEOUT", 0.2)
    with pytest.raises(rendering.RenderError, match="collapse_chains=True.*'matplotlib'"):
        recorded(six_nodes, (4,)).render(tmp_path / "graph.svg", engine="dot")


# --- bad requests -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["graph.pdf", "graph", "graph.svg.txt"])
def test_an_unknown_suffix_is_refused_with_the_choices(tmp_path, name):
    with pytest.raises(ValueError, match=r"ending in \.svg or \.png, or pass format="):
        recorded(six_nodes, (4,)).render(tmp_path / name)
    assert not (tmp_path / name).exists()


def test_format_overrides_the_suffix(tmp_path):
    path = tmp_path / "graph.image"
    recorded(six_nodes, (4,)).render(path, format="svg", engine="matplotlib")
    assert ET.parse(path).getroot().tag == f"{SVG}svg"


@pytest.mark.parametrize("options, message", [
    ({"format": "pdf"}, "cannot draw a graph as 'pdf': choose one of svg, png"),
    ({"engine": "neato"}, "unknown engine 'neato': choose one of dot, matplotlib"),
])
def test_unknown_formats_and_engines_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        rendering.image(recorded(six_nodes, (4,)), **options)


# --- the layout on its own ----------------------------------------------------------

def test_layout_puts_every_edge_downwards_and_keeps_boxes_apart():
    nodes = list("abcdefg")
    edges = [("a", "c"), ("b", "c"), ("c", "d"), ("a", "e"), ("d", "f"), ("e", "f"),
             ("b", "g"), ("g", "f")]
    sizes = {v: (0.5 + 0.1 * k, 0.3) for k, v in enumerate(nodes)}
    layout = layered_layout(nodes, edges, sizes)
    for tail, head in edges:
        assert layout.positions[tail][1] > layout.positions[head][1]
    for u in nodes:
        (x, y), (w, h) = layout.positions[u], sizes[u]
        assert w / 2 <= x + 1e-9 and x + w / 2 <= layout.width + 1e-9
        assert h / 2 <= y + 1e-9 and y + h / 2 <= layout.height + 1e-9
        for v in nodes:
            (x2, y2), w2 = layout.positions[v], sizes[v][0]
            if u < v and y == y2:
                assert abs(x - x2) >= (w + w2) / 2
    assert layout == layered_layout(nodes, edges, sizes)


def test_layout_routes_long_edges_through_each_layer_between():
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")]
    layout = layered_layout(list("abcd"), edges, {v: (1.0, 0.4) for v in "abcd"})
    long_route = layout.routes[3]
    assert long_route[0] == layout.positions["a"] and long_route[-1] == layout.positions["d"]
    assert [y for _, y in long_route] == [layout.positions[v][1] for v in "abcd"]
    assert all(len(route) == 2 for route in layout.routes[:3])


def test_layout_hangs_a_leaf_just_above_its_first_user():
    edges = [("x", "t1"), ("t1", "t2"), ("t2", "t3"), ("c", "t3")]
    layout = layered_layout(["x", "c", "t1", "t2", "t3"], edges,
                            {v: (0.5, 0.3) for v in ["x", "c", "t1", "t2", "t3"]})
    assert layout.positions["c"][1] == layout.positions["t2"][1]


def test_layout_sweeps_remove_avoidable_crossings():
    # Listed in an order that crosses: a over d, b over c, a -> c, b -> d.
    nodes = ["a", "b", "d", "c"]
    edges = [("a", "c"), ("b", "d")]
    layout = layered_layout(nodes, edges, {v: (0.5, 0.3) for v in nodes})
    x = {v: p[0] for v, p in layout.positions.items()}
    assert (x["a"] - x["b"]) * (x["c"] - x["d"]) > 0


def test_layout_starts_a_users_arguments_left_to_right():
    layout = layered_layout(["W", "x", "t"], [("x", "t"), ("W", "t")],
                            {v: (0.5, 0.3) for v in "Wxt"})
    assert layout.positions["x"][0] < layout.positions["W"][0]


def test_layout_refuses_a_cycle():
    with pytest.raises(ValueError, match="acyclic"):
        layered_layout(["a", "b"], [("a", "b"), ("b", "a")], {"a": (1, 1), "b": (1, 1)})


# --- imports and the README picture ---------------------------------------------------

def test_ir_and_tracer_import_without_matplotlib_and_drawing_leaves_pyplot_alone():
    script = ("import sys, numpy as np, tracer, ir, ir.pictures.render\n"
              "assert 'matplotlib' not in sys.modules\n"
              "x = tracer.constant(np.ones(2), name='x')\n"
              "with tracer.GradientTape() as tape:\n"
              "    tape.watch(x)\n"
              "    np.sin(x)\n"
              "assert '<svg' in ir.pictures.render.svg_text(tape.graph, engine='matplotlib')\n"
              "assert 'matplotlib.pyplot' not in sys.modules\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr


def test_the_readme_picture_shows_what_the_example_records():
    """docs/graph.svg (``python docs/make_graph_svg.py``) has the nodes, edges and labels
    of the example's graph; Graphviz versions differ in the rest, which is not compared."""
    spec = importlib.util.spec_from_file_location("make_graph_svg",
                                                  ROOT / "docs" / "make_graph_svg.py")
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    svg = maker.PICTURE.read_text(encoding="utf-8")
    assert drawn_structure(svg, "dot") == expected_structure(maker.recorded_graph(),
                                                             **maker.OPTIONS)
