"""Shapes with symbolic sizes (``ir.sizes.shape_rules``): each rule's shape agrees with numpy
at the traced sizes, questions it must ask become guards, and a primitive without a rule
is specialised to the traced sizes, with a guard for each size it fixes."""

import numpy as np
import pytest

from ir import Graph
from ir.sizes.dims import symbol
from ir.sizes.guards import guarding
from ir.primitive import PRIMITIVES
from ir.primitives.shape import IndexArg
from ir.symbolic import GraphBuilder

B, S = symbol("batch"), symbol("steps")
SIZES = {"batch": 6, "steps": 4}
P = PRIMITIVES


def _inputs(*shapes):
    builder = GraphBuilder(Graph())
    return [builder.input(shape, np.float64, f"x{k}") for k, shape in enumerate(shapes)]


@pytest.mark.parametrize("shapes, expected", [
    ([(B, 8), (8,)], (B, 8)),
    ([(B, 1), (1, S)], (B, S)),
    ([(B, 8), (B, 8)], (B, 8)),
    ([(B, 8), (1,)], (B, 8)),
    ([(2 * B, 3), (B * 2, 1)], (2 * B, 3)),
])
def test_elementwise_primitives_broadcast_symbolic_sizes(shapes, expected):
    with guarding(SIZES) as context:
        x, y = _inputs(*shapes)
        assert (x * y).shape == expected and P["tanh"](x + y).shape == expected
    assert context.guards == []


def test_sizes_broadcast_against_each_other_are_guarded():
    with guarding(SIZES) as context:
        x, y = _inputs((B, 8), (S + 2, 8))
        assert (x + y).shape == (B, 8)
        z, w = _inputs((B,), (6,))
        assert (z * w).shape == (6,)
    assert [g.text() for g in context.guards] == ["batch == steps + 2", "6 == batch"]


def test_reductions_products_and_shape_operations():
    with guarding(SIZES) as context:
        x, w, v = _inputs((B, 8), (8, S), (8,))
        assert P["sum"](x, axis=(0,), keepdims=False).shape == (8,)
        assert P["mean"](x, axis=None, keepdims=True).shape == (1, 1)
        assert P["argmax"](x, axis=1, keepdims=False).shape == (B,)
        assert (x @ w).shape == (B, S) and (x @ v).shape == (B,)
        assert P["transpose"](x @ w, axes=(1, 0)).shape == (S, B)
        assert P["reshape"](x, shape=(8 * B,)).shape == (8 * B,)
        y, = _inputs((S, 8))
        assert P["concatenate"](x, y, axis=0).shape == (B + S, 8)
        assert P["stack"](x, x, x, axis=1).shape == (B, 3, 8)
        assert P["cumsum"](x, axis=0).shape == (B, 8)
        assert P["cast"](x, dtype=np.float32).dtype == np.float32
    assert context.guards == []


def test_a_reshape_keeps_the_element_count_with_a_guard_where_that_is_a_question():
    with guarding(SIZES) as context:
        x, = _inputs((B, 8))
        assert P["reshape"](x, shape=(B // 2, 16)).shape == (B // 2, 16)
    assert [g.text() for g in context.guards] == ["8*batch == 16*(batch // 2)"]
    assert context.guards[0].where == "a reshape's element count"


def test_a_primitive_without_a_rule_is_specialised_with_guards():
    with guarding(SIZES) as context:
        x, = _inputs((B, S))
        out = P["numpy_call"](x, function="np.unique", arguments=(IndexArg(0),), keywords=(),
                              result=None)
        assert out.shape[0] <= 24
    assert {g.text() for g in context.guards} == {"batch == 6", "steps == 4"}
    assert "numpy_call" in context.guards[0].where


def test_thin_decompositions_take_the_smaller_size_with_a_guard():
    with guarding(SIZES) as context:
        x, = _inputs((B, S))
        assert P["svd_u"](x).shape == (B, S) and P["svdvals"](x).shape == (S,)
        assert P["qr_r"](P["transpose"](x, axes=(1, 0))).shape == (S, B)
    assert {g.text() for g in context.guards} == {"batch >= steps", "steps < batch"}


def test_square_decompositions_need_equal_sizes():
    with guarding(SIZES) as context:
        a, = _inputs((S, S))
        assert P["eigvalsh"](a).shape == (S,) and P["det"](a).shape == ()
        assert P["inv"](a).shape == (S, S)
    assert context.guards == []
    with guarding({"batch": 4, "steps": 4}) as context:
        x, = _inputs((B, 4))
        assert P["eigh_vectors"](x).shape == (B, 4)
    assert [g.text() for g in context.guards] == ["batch == 4"]


def test_pads_diagonals_and_index_arrays_have_rules():
    with guarding(SIZES) as context:
        x, = _inputs((B, S))
        assert P["pad"](x, pad_width=((1, 2), (0, 0)), constant_values=0.0).shape == (B + 3, S)
        positions = np.array([0, 2, 1])
        assert P["getitem"](x, positions, key=(slice(None), IndexArg(0))).shape == (B, 3)
        assert P["diagonal"](x, offset=0, axis1=0, axis2=1).shape in ((B,), (S,))
        assert P["einsum"](x, x, subscripts="ij,ij->i").shape == (B,)
    assert [g.text() for g in context.guards] == ["batch > steps"]


def test_a_wrong_rule_is_caught_at_the_traced_sizes(monkeypatch):
    monkeypatch.setattr(P["transpose"], "shape_rule", lambda avals, params: avals[0][0])
    with guarding(SIZES), pytest.raises(AssertionError, match="shape rule of transpose"):
        x, = _inputs((B, 8))
        P["transpose"](x, axes=(1, 0))


def test_symbolic_shapes_need_the_traced_sizes():
    x, = _inputs((B, 8))
    with pytest.raises(TypeError, match="inside ir.sizes.guards.guarding"):
        P["tanh"](x)


@pytest.mark.parametrize("key, expected, guards", [
    ((0,), (8,), []),
    ((slice(1, 3),), (2, 8), ["batch >= 3"]),
    ((slice(None, -1),), (B - 1, 8), []),
    ((slice(None, None, 2),), ((B + 1) // 2, 8), []),
    ((slice(None, None, -1),), (B, 8), []),
    ((Ellipsis, 0), (B,), []),
    ((None, slice(2, None)), (1, B - 2, 8), ["batch >= 2"]),
])
def test_basic_indexing_keeps_sizes_symbolic(key, expected, guards):
    with guarding(SIZES) as context:
        x, = _inputs((B, 8))
        assert P["getitem"](x, key=key).shape == expected
    assert [g.text() for g in context.guards] == guards


# --- every rule against numpy, at random shapes and keys -----------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

NAMES = ["n0", "n1", "n2"]


@st.composite
def symbolic_shapes(draw, rank=None):
    """A concrete shape and the same shape with some sizes made symbolic (each symbol
    traced at its concrete size; sizes of 1 stay concrete, as broadcasting needs)."""
    rank = draw(st.integers(0, 3)) if rank is None else rank
    sizes = draw(st.lists(st.sampled_from([1, 2, 3, 5]), min_size=rank, max_size=rank))
    symbolic, hints = [], {}
    for size in sizes:
        name = draw(st.sampled_from(NAMES + [None]))
        if size == 1 or name is None or hints.get(name, size) != size:
            symbolic.append(size)
        else:
            hints[name] = size
            symbolic.append(symbol(name))
    return tuple(sizes), tuple(symbolic), hints


def _apply(name, symbolic_shapes_, hints, **params):
    """The primitive on symbolic inputs (its rule checked against numpy inside)."""
    with guarding({**{n: 2 for n in NAMES}, **hints}):
        builder = GraphBuilder(Graph())
        args = [builder.input(s, np.float64, f"x{k}") for k, s in enumerate(symbolic_shapes_)]
        return P[name](*args, **params)


@settings(max_examples=150, deadline=None)
@given(symbolic_shapes(), symbolic_shapes())
def test_broadcasting_agrees_with_numpy(a, b):
    try:
        expected = np.broadcast_shapes(a[0], b[0])
    except ValueError:
        return
    hints = {**a[2], **b[2]}
    if any(a[2].get(n, v) != v for n, v in b[2].items()):
        return
    out = _apply("add", [a[1], b[1]], hints)
    assert len(out.shape) == len(expected)


@settings(max_examples=150, deadline=None)
@given(symbolic_shapes(), st.data())
def test_reductions_transposes_and_indexing_agree_with_numpy(shape, data):
    sizes, symbolic, hints = shape
    rank = len(sizes)
    axis = data.draw(st.none() | st.sets(st.integers(0, max(rank - 1, 0)), max_size=rank)
                     .map(lambda s: tuple(sorted(s))))
    if rank:
        _apply("sum", [symbolic], hints, axis=axis, keepdims=data.draw(st.booleans()))
        _apply("transpose", [symbolic], hints,
               axes=tuple(data.draw(st.permutations(range(rank)))))
    parts = st.integers(-2, 2) | st.builds(
        slice, st.none() | st.integers(-6, 6), st.none() | st.integers(-6, 6),
        st.none() | st.sampled_from([1, 2, 3, -1]))
    key = tuple(data.draw(st.lists(parts, max_size=rank)))
    try:
        np.zeros(sizes)[key]
    except IndexError:
        return
    if any(isinstance(k, slice) and k.step == -1 and (k.start, k.stop) != (None, None)
           for k in key):
        return  # (specialised: checked by the fallback's own probe)
    _apply("getitem", [symbolic], hints, key=key)


@settings(max_examples=100, deadline=None)
@given(symbolic_shapes(rank=2), symbolic_shapes(rank=2))
def test_matmul_and_joins_agree_with_numpy(a, b):
    hints = {**a[2], **b[2]}
    if any(a[2].get(n, v) != v for n, v in b[2].items()):
        return
    if a[0][1] == b[0][0]:
        _apply("matmul", [a[1], b[1]], hints)
    if a[0][1] == b[0][1]:
        _apply("concatenate", [a[1], b[1]], hints, axis=0)
    if a[0] == b[0]:
        _apply("stack", [a[1], b[1]], hints, axis=1)


def test_contractions_gathers_and_matrix_functions():
    with guarding(SIZES) as context:
        x, a, v, idx = _inputs((B, 8, S), (S, 3), (B,), (B, 2, S))
        assert P["tensordot"](x, a, axes=1).shape == (B, 8, 3)
        assert P["tensordot"](x, x, axes=((0, 2), (0, 2))).shape == (8, 8)
        assert P["norm"](x, axis=(1,), keepdims=True).shape == (B, 1, S)
        m, = _inputs((B, S, S))
        assert P["inv"](m).shape == (B, S, S) and P["det"](m).shape == (B,)
        assert P["pinv"](m, rtol=None).shape == (B, S, S)
        assert P["solve"](m, _inputs((B, S, 2))[0]).shape == (B, S, 2)
    assert [g.text() for g in context.guards] == []
    with guarding(SIZES):
        builder = GraphBuilder(Graph())
        x = builder.input((B, 8), np.float64, "x")
        i = builder.input((B, 3), np.int64, "i")
        assert P["take_along_axis"](x, i, axis=1).shape == (B, 3)
