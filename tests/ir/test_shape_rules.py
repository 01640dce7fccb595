"""Shapes with symbolic sizes (``ir.shape_rules``): each rule's shape agrees with numpy
at the traced sizes, questions it must ask become guards, and a primitive without a rule
is specialised to the traced sizes, with a guard for each size it fixes."""

import numpy as np
import pytest

from ir import Graph
from ir.dims import symbol
from ir.guards import guarding
from ir.primitive import PRIMITIVES
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
        assert P["reshape"](x, shape=(B // 2, 16)).shape == (B // 2, 16)
        y, = _inputs((S, 8))
        assert P["concatenate"](x, y, axis=0).shape == (B + S, 8)
        assert P["stack"](x, x, x, axis=1).shape == (B, 3, 8)
        assert P["cumsum"](x, axis=0).shape == (B, 8)
        assert P["cast"](x, dtype=np.float32).dtype == np.float32
    assert context.guards == []


def test_a_primitive_without_a_rule_is_specialised_with_guards():
    with guarding(SIZES) as context:
        x, = _inputs((B, S))
        out = P["pad"](x, pad_width=((1, 1), (0, 0)), constant_values=0.0)
        assert out.shape == (8, 4)
    assert {g.text() for g in context.guards} == {"batch == 6", "steps == 4"}
    assert "pad" in context.guards[0].where


def test_a_wrong_rule_is_caught_at_the_traced_sizes(monkeypatch):
    monkeypatch.setattr(P["transpose"], "shape_rule", lambda avals, params: avals[0][0])
    with guarding(SIZES), pytest.raises(AssertionError, match="shape rule of transpose"):
        x, = _inputs((B, 8))
        P["transpose"](x, axes=(1, 0))


def test_symbolic_shapes_need_the_traced_sizes():
    x, = _inputs((B, 8))
    with pytest.raises(TypeError, match="inside ir.guards.guarding"):
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
