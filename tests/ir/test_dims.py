"""Symbolic sizes (``ir.sizes.dims``): arithmetic that agrees with integers at every value of
its symbols, one canonical form, source text that Python reads back to the same value,
JSON data that loads without evaluating anything, and no silent answer to a question
only the sizes at run time can answer."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from ir.sizes.dims import Size, at_least, symbol
from ir.sizes.data import size_from_data

NAMES = ("batch", "steps")
BATCH = {"$": "size", "terms": [[1, ["batch"]]]}
OPERATIONS = ("+", "-", "*", "//", "%", "neg")


@st.composite
def programs(draw, depth=3):
    """An expression as a tree over the symbols and small integers."""
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(NAMES) | st.integers(-5, 9))
    operation = draw(st.sampled_from(OPERATIONS))
    if operation == "neg":
        return ("neg", draw(programs(depth=depth - 1)))
    left = draw(programs(depth=depth - 1))
    if operation in ("//", "%"):  # a positive divisor: a size, or an integer
        right = draw(st.sampled_from(NAMES) | st.integers(1, 6))
    else:
        right = draw(programs(depth=depth - 1))
    return (operation, left, right)


def run(program, leaf):
    """The program with each leaf given by ``leaf``, computed with Python's operators."""
    if not isinstance(program, tuple):
        return leaf(program)
    if program[0] == "neg":
        return -run(program[1], leaf)
    a, b = run(program[1], leaf), run(program[2], leaf)
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "//": lambda: a // b, "%": lambda: a % b}[program[0]]()


def symbolic(program):
    return run(program, lambda v: symbol(v) if isinstance(v, str) else v)


def value(program, sizes):
    return run(program, lambda v: sizes[v] if isinstance(v, str) else v)


@settings(max_examples=300, deadline=None)
@given(programs(), st.integers(1, 40), st.integers(1, 40))
def test_a_size_evaluates_to_what_the_integers_give(program, batch, steps):
    sizes = {"batch": batch, "steps": steps}
    size = symbolic(program)
    expected = value(program, sizes)
    got = size.evaluate(sizes) if isinstance(size, Size) else size
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(programs(), st.integers(1, 40), st.integers(1, 40))
def test_the_source_text_computes_the_same_size(program, batch, steps):
    size = symbolic(program)
    if isinstance(size, Size):
        text = size.text(lambda name: f"n_{name}")
        assert eval(text, {"n_batch": batch, "n_steps": steps}) == size.evaluate(
            {"batch": batch, "steps": steps})


@settings(max_examples=400, deadline=None)
@given(programs(), st.integers(-3, 3))
def test_a_bound_known_for_every_size_holds_at_every_size(program, bound):
    """``at_least`` may say "not known", never a false "yes" (guards would then be dropped)."""
    size = symbolic(program)
    if at_least(size, bound):
        for batch in range(1, 13):
            for steps in range(1, 13):
                assert value(program, {"batch": batch, "steps": steps}) >= bound


@pytest.mark.parametrize("expression, bound", [
    (lambda n: (n + 1) // 2, 1), (lambda n: n // 2 + 1 - (n + 1) // 2, 0),
    (lambda n: n - 2 % n, 0), (lambda n: -4 % (3 * n), 0), (lambda n: (n + 5) // 3, 2),
])
def test_bounds_of_quotients_and_remainders_are_known(expression, bound):
    assert at_least(expression(symbol("batch")), bound)


@settings(max_examples=200, deadline=None)
@given(programs())
def test_json_data_loads_back_to_the_same_size(program):
    size = symbolic(program)
    data = json.loads(json.dumps(size.to_data() if isinstance(size, Size) else size))
    assert size_from_data(data, "shape") == size


def test_equal_polynomials_are_one_form():
    b, s = symbol("batch"), symbol("steps")
    assert b * 2 == 2 * b and hash(b * 2) == hash(2 * b)
    assert b * s + b == b * (s + 1)
    assert (b + 1) * (b - 1) == b * b - 1
    assert b - b == 0 and type(b - b) is int
    assert (4 * b) // 2 == 2 * b and (4 * b) % 2 == 0
    assert (b * s) // s == b
    assert str(b * s + 2 * b + 1) == "batch*steps + 2*batch + 1"
    assert str(b - b // 2) == "batch - batch // 2"
    assert str(-(b // 2)) == "-(batch // 2)"
    assert b != 3 and b != symbol("steps")


@pytest.mark.parametrize("question", [
    lambda b: bool(b), lambda b: int(b), lambda b: b > 3, lambda b: [0, 1][b],
    lambda b: range(b),
])
def test_questions_about_a_sizes_value_are_refused(question):
    with pytest.raises(TypeError, match="not known while tracing"):
        question(symbol("batch"))


@pytest.mark.parametrize("name", ["2x", "a-b", "class", "", 3])
def test_a_symbol_is_named_by_an_identifier(name):
    with pytest.raises(ValueError, match="identifier"):
        symbol(name)


@pytest.mark.parametrize("data, message", [
    ({"$": "size", "terms": [[1, ["__import__('os')"]]]}, "identifier"),
    ({"$": "size", "terms": [[1.5, ["batch"]]]}, "coefficient"),
    ({"$": "size", "terms": [[1, [{"$": "//", "of": [BATCH, 0]}]]]}, "divided by zero"),
    ({"$": "size", "terms": [[1, [{"$": "**", "of": [BATCH, 2]}]]]}, "quotient or remainder"),
    ({"$": "size", "terms": [[1, [{"$": "//", "of": [{"$": "size", "terms": [[1, ["b"]]]},
                                                    2]}]]], "extra": 1}, "not a size"),
    ("batch", "not a size"),
])
def test_bad_size_data_is_refused_naming_where(data, message):
    with pytest.raises(ValueError, match=message) as error:
        size_from_data(data, "node 3 shape")
    assert "node 3 shape" in str(error.value)


def test_deeply_nested_size_data_is_refused():
    data = BATCH
    for _ in range(20):
        data = {"$": "size", "terms": [[1, [{"$": "//", "of": [data, 2]}]]]}
    with pytest.raises(ValueError, match="nested deeper"):
        size_from_data(data, "shape")


def test_sizes_are_immutable_values():
    b = symbol("batch")
    assert isinstance(b, Size) and {b: 1}[symbol("batch")] == 1
    assert b.symbols == {"batch"} and (b * symbol("steps") // 3).symbols == {"batch", "steps"}


def test_graphs_with_symbolic_shapes_list_and_round_trip_through_json():
    """Nodes may carry symbolic shapes and params symbolic sizes; the listing shows the
    symbols, and JSON keeps them as data."""
    from ir import Graph
    b = symbol("batch")
    graph = Graph()
    x = graph.add_node("input", "input", (), {}, (b, 8), "float64", name="x")
    flat = graph.add_node("op", "reshape", [x.id], {"shape": (8 * b,)}, (8 * b,), "float64")
    half = graph.add_node("op", "reshape", [flat.id], {"shape": (b // 2, 16)},
                          (b // 2, 16), "float64")
    graph.outputs = [half.id]
    listing = graph.to_text()
    assert "x: f64[batch,8] = input" in listing
    assert "f64[batch // 2,16] = reshape" in listing and "shape=(8*batch,)" in listing
    document = graph.to_json()
    assert "__" not in document
    loaded = Graph.from_json(document)
    assert loaded.to_text() == listing
    assert loaded[flat.id].params["shape"] == (8 * b,) and loaded[x.id].shape == (b, 8)


def test_symbolic_shapes_in_json_are_checked():
    from ir import Graph
    from ir.json.format import GraphFormatError
    graph = Graph()
    graph.add_node("input", "input", (), {}, (symbol("batch"), 8), "float64", name="x")
    graph.outputs = [0]
    document = graph.to_json().replace('"batch"', '"os.system"')
    with pytest.raises(GraphFormatError, match="node 0 shape.*identifier"):
        Graph.from_json(document)


def test_pictures_summaries_and_networkx_see_symbolic_shapes():
    from ir import Graph
    b = symbol("batch")
    graph = Graph()
    x = graph.add_node("input", "input", (), {}, (b, 8), "float64", name="x")
    t = graph.add_node("op", "tanh", [x.id], {}, (b, 8), "float64")
    graph.outputs = [t.id]
    assert "f64[batch,8]" in graph.to_dot()
    assert graph.nx.nodes[t.id]["shape"] == (b, 8)
    assert "1 input, 1 op" in str(graph.summary())
