"""Graphs as JSON: exact round trips, and loading that fails only with ``GraphFormatError``.

Round trips compare every node field by value and by type (a tuple is not a
list, a Python float not a numpy scalar), over every row of the primitive
table, its adjoint and optimised adjoint graphs, and random programs.  A
loaded graph must differentiate and evaluate like the original, and generate
working gradient code in another process.  The fuzz tests mutate valid
documents (text and structure) and feed hostile ones: any failure to load
must be the documented error.
"""

import functools
import json
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import ir
import tracer
from ir.primitives.shape import IndexArg
from ir.json.serialize import GraphFormatError, from_json, to_json
from recorded import recorded_graph
from test_primitive_gradients import rows


def structure(value):
    """``value`` as nested tuples that are equal only when types and contents are."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.generic):
        return (type(value).__name__, value.tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(structure(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, structure(v)) for k, v in value.items()))
    if isinstance(value, slice):
        return ("slice", structure(value.start), structure(value.stop), structure(value.step))
    return (type(value).__name__, repr(value))


FIELDS = ("id", "kind", "op", "inputs", "params", "shape", "dtype", "name", "source", "value",
          "meta")


def assert_same_graph(loaded, original, omitted=()):
    """Every field of every node equal in type and value; ``omitted`` leaves load as None."""
    assert structure(loaded.outputs) == structure(list(original.outputs))
    assert len(loaded) == len(original)
    for got, want in zip(loaded, original):
        for field in FIELDS:
            expected = None if field == "value" and want.id in omitted else getattr(want, field)
            assert structure(getattr(got, field)) == structure(expected), (want.id, field)


def round_trip(graph):
    """The graph loaded from its document, which must write back the same document."""
    text = to_json(graph)
    loaded = from_json(text)
    assert to_json(loaded) == text
    return loaded


def derived(graph, target, inputs):
    """The graph, its adjoint and its optimised adjoint."""
    adjoint = ir.adjoint(graph, [target], inputs)
    return graph, adjoint, ir.optimize(adjoint)


def assert_values_equal(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if w is not None:
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(g, w)


CASES = [pytest.param(case, id=case.id) for case in rows()]


@pytest.mark.parametrize("case", CASES)
def test_recorded_adjoint_and_optimised_graphs_round_trip_exactly(case):
    for graph in derived(*recorded_graph(case.fn, case.arrays())):
        assert_same_graph(round_trip(graph), graph)


@pytest.mark.parametrize("case", CASES[::7], ids=lambda case: case.id)
def test_a_loaded_graph_differentiates_and_evaluates_like_the_original(case):
    graph, target, inputs = recorded_graph(case.fn, case.arrays())
    loaded = from_json(to_json(graph))
    assert_values_equal(ir.evaluate(loaded), ir.evaluate(graph))
    assert_values_equal(ir.evaluate(ir.adjoint(loaded, [target], inputs)),
                        ir.evaluate(ir.adjoint(graph, [target], inputs)))


def _special_graph():
    """A graph with every kind of value the format tags, written by hand."""
    graph = ir.Graph()
    x = graph.add_node("input", "input", (), {}, (4, 5), np.float32, name="x",
                       source=ir.SourceLocation("model.py", 3, "loss"),
                       value=np.arange(20, dtype=np.float32).reshape(4, 5),
                       meta={"default_name": False})
    scalars = [graph.add_node("constant", "constant", (), {}, (), np.result_type(v), value=v)
               for v in (2, 2.5, True, 1 + 2j, float("inf"), float("-inf"), float("nan"),
                         -0.0, np.float32(1.5), np.int8(-3), np.bool_(False))]
    index = graph.add_node("constant", "constant", (), {}, (2,), np.int64,
                           value=np.array([0, 3]))
    key = (Ellipsis, None, slice(None, None, -1), IndexArg(0))
    picked = graph.add_node("op", "getitem", (x.id, index.id), {"key": key}, (1, 4, 2),
                            np.float32,
                            meta={"adjoint_of": x.id, "cotangent_of": None,
                                  "adjoint_source": ir.SourceLocation("m.py", 9, "f"),
                                  "variable": "w", "tags": [1, (2, [3.0])]})
    graph.add_node("op", "cast", (picked.id,), {"dtype": np.dtype(np.float64)}, (1, 4, 2),
                   np.float64, meta={"scalar_type": np.float16})
    graph.add_node("constant", "constant", (), {}, (0, 3), np.complex64,
                   value=np.zeros((0, 3), np.complex64))
    graph.outputs = [picked.id, None, scalars[0].id]
    return graph


def test_every_tagged_value_round_trips_with_its_type():
    graph = _special_graph()
    assert_same_graph(round_trip(graph), graph)


def test_large_constants_keep_only_shape_and_dtype():
    graph = _special_graph()
    loaded = from_json(to_json(graph, max_constant_elements=4))
    assert_same_graph(loaded, graph, omitted={0})
    assert loaded[0].shape == (4, 5) and loaded[0].dtype == np.float32
    with pytest.raises(ValueError, match="no recorded value"):
        ir.evaluate(loaded)
    value = graph[0].value
    assert_values_equal(ir.evaluate(loaded, {0: value}), ir.evaluate(graph))


def test_variables_round_trip():
    v = tracer.Variable(np.array([1.0, 2.0]), name="v")
    with tracer.GradientTape() as tape:
        y = np.sum(v * v)
        v.assign(v * 0.5)
        y = y + np.sum(v)
    graph = tape.graph
    assert [n.meta.get("variable") for n in graph if n.kind == "variable"] == ["v", "v"]
    assert_same_graph(round_trip(graph), graph)


def test_custom_gradient_nodes_are_refused_when_written():
    @tracer.custom_gradient
    def double(x):
        return x * 2.0, lambda g: g * 2.0

    x = tracer.constant(np.ones(3))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        double(x)
    with pytest.raises(GraphFormatError, match="custom_gradient"):
        to_json(tape.graph)


@pytest.mark.parametrize("value", [np.array(["a"]), np.array([object()], dtype=object),
                                   np.ones(2, dtype=">f8"), {1: 2}, object(), 2**70])
def test_values_the_format_cannot_hold_are_refused_when_written(value):
    graph = ir.Graph()
    graph.add_node("constant", "constant", (), {}, (), np.float64, value=value)
    with pytest.raises(GraphFormatError):
        to_json(graph)


GENERATED = textwrap.dedent('''
    import sys
    import numpy as np
    import codegen
    from ir.json.serialize import from_json

    folder = sys.argv[1]
    with open(folder + "/graph.json", encoding="utf-8") as handle:
        graph = from_json(handle.read())
    target, *sources = (int(a) for a in sys.argv[2:])
    module = codegen.load(codegen.gradient_source(graph, target, sources))
    arguments = np.load(folder + "/arguments.npz")
    gradients = module.gradient(*(arguments[f"a{k}"] for k in range(len(sources))))
    np.savez(folder + "/gradients.npz", *gradients)
''')


def test_a_graph_loaded_in_another_process_generates_gradient_code(tmp_path):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    tx, tw = tracer.constant(x, name="x"), tracer.constant(w, name="w")
    with tracer.GradientTape() as tape:
        tape.watch([tx, tw])
        loss = np.mean(np.tanh(tx @ tw) ** 2) + np.max(tx[:, 1:3])
    graph = tape.graph
    eager = tape.gradient(loss, [tx, tw])
    (tmp_path / "graph.json").write_text(to_json(graph), encoding="utf-8")
    np.savez(tmp_path / "arguments.npz", a0=x, a1=w)
    (tmp_path / "run.py").write_text(GENERATED)
    target = [n.id for n in graph if n.kind == "op"][-1]
    sources = [n.id for n in graph if n.kind == "input"]
    subprocess.run([sys.executable, "run.py", str(tmp_path), str(target), *map(str, sources)],
                   cwd=tmp_path, check=True)
    results = np.load(tmp_path / "gradients.npz")
    for k, expected in enumerate(eager):
        np.testing.assert_allclose(results[f"arr_{k}"], expected.numpy(), rtol=1e-12)


# --- random programs -----------------------------------------------------------------


def _unary_steps(shape):
    """Strategies of one-argument steps valid for a value of ``shape``."""
    axes = st.sampled_from([None] + list(range(-len(shape), len(shape))))
    constants = st.floats(-3, 3) | st.integers(-3, 3)
    steps = [st.sampled_from([np.sin, np.tanh, np.exp, np.square, np.transpose,
                              lambda t: np.reshape(t, (-1,)), lambda t: t.astype(np.float32)]),
             constants.map(lambda c: lambda t: t * c),
             constants.map(lambda c: lambda t: c - t),
             st.tuples(axes, st.booleans()).map(
                 lambda a: lambda t: np.sum(t, axis=a[0], keepdims=a[1])),
             st.tuples(axes, st.booleans()).map(
                 lambda a: lambda t: np.prod(t, axis=a[0], keepdims=a[1]))]
    if shape:
        steps.append(hnp.basic_indices(shape, allow_newaxis=True).map(
            lambda key: lambda t: t[key]))
        steps.append(st.lists(st.integers(0, shape[0] - 1), min_size=1, max_size=3).map(
            lambda picks: lambda t: t[picks] * 1.0) if shape[0] else st.just(np.cos))
    return st.one_of(steps)


@st.composite
def programs(draw):
    """A recorded random program: its graph, target and input ids."""
    shapes = draw(st.lists(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3),
                           min_size=1, max_size=2))
    tensors = [tracer.constant(np.linspace(-1.0, 1.0, int(np.prod(s))).reshape(s))
               for s in shapes]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        pool = list(tensors)
        for _ in range(draw(st.integers(1, 5))):
            current = pool[-1]
            partners = [p for p in pool if _broadcasts(p.shape, current.shape)]
            if len(partners) > 1 and draw(st.booleans()):
                pool.append(current * draw(st.sampled_from(partners)))
            else:
                pool.append(draw(_unary_steps(current.shape))(current))
        np.sum(np.sin(pool[-1]))
    graph = tape.graph
    target = [n.id for n in graph if n.kind == "op"][-1]
    return graph, target, [n.id for n in graph if n.kind == "input"]


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_round_trip_and_evaluate_alike(program):
    graph, target, inputs = program
    for original in derived(graph, target, inputs):
        loaded = round_trip(original)
        assert_same_graph(loaded, original)
        with np.errstate(all="ignore"):
            assert_values_equal(ir.evaluate(loaded), ir.evaluate(original))


# --- hostile input -------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _valid_document():
    graph, target, inputs = recorded_graph(
        lambda x: np.sum(np.tanh(x[1:, None, ::2]) * 2.5 + x[0, ::2]),
        [np.linspace(-1.0, 1.0, 12).reshape(3, 4)])
    return to_json(ir.adjoint(graph, [target], inputs))


def assert_loads_or_refuses(text):
    """``text`` loads (and writes back), or fails with ``GraphFormatError`` alone."""
    try:
        graph = from_json(text)
    except GraphFormatError:
        return
    to_json(graph)


HOSTILE = [
    "", "null", "[]", "{}", '"graph"', "{" * 100000, "[" * 100000 + "]" * 100000,
    '{"format": "tapegen.graph", "version": 1, "nodes": [], "outputs": []}' + "x",
    '{"format": "tapegen.graph", "version": 2, "nodes": [], "outputs": []}',
    '{"format": "tapegen.graph", "version": 1.0, "nodes": [], "outputs": []}',
    '{"format": "tapegen.graph", "version": 1, "nodes": [], "outputs": [0]}',
    '{"format": "tapegen.graph", "version": 1, "version": 1, "nodes": [], "outputs": []}',
    '{"format": "tapegen.graph", "version": ' + "9" * 100000 + ', "nodes": [], "outputs": []}',
    '{"format": "tapegen.graph", "version": 1e999, "nodes": [], "outputs": []}',
    '{"format": "tapegen.graph", "version": NaN, "nodes": [], "outputs": []}',
    b"\xff\xfe{}", 12, None,
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_documents_are_refused(text):
    with pytest.raises(GraphFormatError):
        from_json(text)


NODE = {"id": 0, "kind": "constant", "op": "constant", "inputs": [], "params": {},
        "shape": [2], "dtype": "float64", "name": None, "source": None, "value": None,
        "meta": {}}
BAD_NODES = [
    {"shape": [2**62, 2**62]}, {"shape": [-1]}, {"shape": [1] * 33}, {"shape": [2.0]},
    {"shape": [True]}, {"dtype": "object"}, {"dtype": "O"}, {"dtype": "<U8"}, {"id": 1},
    {"kind": "op", "op": "eval"}, {"kind": "op", "op": "custom_gradient"},
    {"kind": "op", "op": "sin", "inputs": [0]}, {"kind": "module"}, {"op": "input"},
    {"name": "n" * 5000}, {"source": {"file": "f", "line": "1", "function": "g"}},
    {"value": {"$": "array", "dtype": "float64", "shape": [2**40], "data": "AAAA"}},
    {"value": {"$": "array", "dtype": "float64", "shape": [2], "data": "AAAA"}},
    {"value": {"$": "array", "dtype": "int8", "shape": [3], "data": "AA!A"}},
    {"value": {"$": "scalar", "dtype": "int8", "shape": [1], "data": "AA=="}},
    {"value": {"$": "pickle", "data": "gASVAAAA"}}, {"value": {"$": "float", "value": "1e3"}},
    {"value": {"$": "slice", "start": 1.5, "stop": None, "step": None}},
    {"value": {"$": "complex", "real": 1, "imag": 2}}, {"value": {"a": 1}},
    {"value": {"$": "omitted", "dtype": "float64", "shape": [-2]}},
    {"params": {"key": {"$": "tuple"}}}, {"params": []},
    {"params": {"key": {"$": "index_arg", "position": -1}}}, {"meta": {"adjoint_of": 5}},
    {"meta": {"seed_of": True}}, {"extra": 1},
    {"params": {"key": {"$": "tuple", "items": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]
                                                ]]]]]]]]]]]]]]]]]]}}},
]


@pytest.mark.parametrize("change", BAD_NODES, ids=range(len(BAD_NODES)))
def test_invalid_nodes_are_refused(change):
    document = {"format": "tapegen.graph", "version": 1, "nodes": [{**NODE, **change}],
                "outputs": [0]}
    with pytest.raises(GraphFormatError):
        from_json(json.dumps(document))


def test_the_base_node_of_the_invalid_ones_is_valid():
    document = {"format": "tapegen.graph", "version": 1, "nodes": [NODE], "outputs": [0]}
    assert from_json(json.dumps(document))[0].shape == (2,)


def test_documents_above_the_size_bound_are_refused():
    text = _valid_document()
    with pytest.raises(GraphFormatError, match="larger"):
        from_json(text, max_size=len(text) - 1)
    assert len(from_json(text, max_size=len(text))) > 0


CHARACTERS = '{}[]":,-.0123456789eE$ntrufalsbd\\ '


def _mutate_text(text, rng):
    position = rng.randrange(len(text) + 1)
    choice = rng.randrange(4)
    if choice == 0:
        return text[:position] + text[position + rng.randrange(1, 40):]
    if choice == 1:
        return text[:position] + rng.choice(CHARACTERS) + text[position:]
    if choice == 2:
        return text[:position]
    span = text[position:position + rng.randrange(1, 80)]
    return text[:position] + span + span + text[position + len(span):]


REPLACEMENTS = [None, True, False, 0, -1, 1, 2**62, -(2**62), 0.5, 1e308, "", "x" * 5000,
                "float64", "object", "input", "op", "sin", [], {}, [0], [2**40, 2**40], [[[]]],
                {"$": "tuple", "items": []}, {"$": "array", "dtype": "float64", "shape": [1],
                                              "data": "AAAAAAAA8D8="},
                {"$": "omitted", "dtype": "bool", "shape": [3]}, {"$": "ellipsis"}]


def _mutate_tree(text, rng):
    """Replace, delete or add one member somewhere in the parsed document."""
    document = json.loads(text)
    containers = []

    def collect(value):
        if isinstance(value, (dict, list)) and value:
            containers.append(value)
            for item in (value.values() if isinstance(value, dict) else value):
                collect(item)

    collect(document)
    container = rng.choice(containers)
    key = rng.choice(list(container) if isinstance(container, dict) else range(len(container)))
    action = rng.randrange(3)
    if action == 0:
        container[key] = rng.choice(REPLACEMENTS)
    elif action == 1:
        del container[key]
    elif isinstance(container, dict):
        container[rng.choice(["$", "extra", "items", "value"])] = rng.choice(REPLACEMENTS)
    else:
        container.insert(key, rng.choice(REPLACEMENTS))
    return json.dumps(document)


def test_seeded_mutations_fail_only_with_the_documented_error():
    valid = _valid_document()
    rng = random.Random(20240601)
    for _ in range(1500):
        text = valid
        for _ in range(rng.randrange(1, 4)):
            text = _mutate_tree(text, rng) if rng.random() < 0.6 else _mutate_text(text, rng)
            if rng.random() < 0.5 or not _is_json(text):
                break
        assert_loads_or_refuses(text)


def _is_json(text):
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_arbitrary_json_anywhere_fails_only_with_the_documented_error(data):
    document = json.loads(_valid_document())
    node = data.draw(st.sampled_from(document["nodes"]))
    field = data.draw(st.sampled_from(sorted(node)))
    node[field] = data.draw(JSON_VALUES)
    assert_loads_or_refuses(json.dumps(document))
