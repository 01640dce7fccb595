"""An optimisation pass: constant factors move out of products and reductions, where they
meet other constants or multiply fewer elements.

- ``(a * c) * (b * d) -> (a * b) * (c * d)``: the power rule's ``2 * x`` times
  an upstream ``g * -200.0`` is ``(g * x) * -400.0``, one multiplication
  fewer; so with ``/`` and ``-`` (``(a / c) * -b -> (a * b) / -c``).
- ``sum(x * c) -> sum(x) * c`` and ``sum(-x) -> -sum(x)`` for a scalar ``c``,
  and so for ``mean`` and ``sum_to``: the factor scales the reduced result,
  not every element (a mean's ``np.sum(Y * (1 / 1797), axis=1)`` becomes
  ``np.sum(Y, axis=1) * (1 / 1797)``).

Only where the scaled values are read by nothing else (else both forms would
be computed), the factors are finite and nonzero and the values floating
(as ``ir.optimize.simplify`` folds factors), and every new value has the dtype of
the one it replaces, so a float32 product is never rounded to float32 where
it was float64.  Equal to the graph before up to rounding: a factor applied
once instead of twice, or after a sum rather than to each term.
"""

import numpy as np

from ir.primitives.broadcast import sum_to
from ir.primitives.elementwise import multiply, negative
from ir.primitives.reductions import mean, sum_
from ir.optimize.rewrite import FOLD_LIMIT, Rewrite, unchanged
from ir.optimize.simplify import Term, abstract_of, combined, factor_value, finite_nonzero, scaling
from ir.optimize.sums import new_op, reader_counts

REDUCTIONS = (sum_, mean, sum_to)
"""Reductions that are linear in their one operand."""


def move_constant_factors(graph):
    """Move constant factors out of products of two scaled values and out of sums."""
    counts = reader_counts(graph)
    if not any(_has_scaled_operands(graph, node, counts) for node in graph):
        return unchanged(graph, "move_constant_factors")
    rewrite = Rewrite(graph)
    for node in graph:
        term = _moved(rewrite, node, counts) if node.kind == "op" else None
        if term is None:
            rewrite.keep(node)
        else:
            inputs = tuple(_added(rewrite, a, node) for a in term.inputs)
            rewrite.keep(node, op=term.primitive, inputs=inputs, params=term.params)
            rewrite.changes += 1
    return rewrite.finish("move_constant_factors")


def _has_scaled_operands(graph, node, counts):
    """Whether ``node`` is a product or reduction whose operands are all scaled values
    read once: what ``_moved`` may rewrite (a cheap look, on the old graph)."""
    if node.primitive is multiply and node.dtype.kind == "f":
        operands = node.inputs
    elif node.primitive in REDUCTIONS and node.dtype.kind in "fc":
        operands = node.inputs[:1]
    else:
        return False
    return all(graph[i].kind == "op" and counts.get(i) == 1
               and scaling(graph, graph[i]) is not None for i in operands)


def _moved(rewrite, node, counts):
    """``node`` with its factors moved out, as a ``Term`` of the new graph, else ``None``."""
    if node.primitive is multiply and node.dtype.kind == "f":
        term = _product_of_scalings(rewrite, node, counts)
    elif node.primitive in REDUCTIONS and node.dtype.kind in "fc":
        term = _reduction_of_scaling(rewrite, node, counts)
    else:
        return None
    if term is None or abstract_of(rewrite.new, term) != (node.shape, node.dtype):
        return None
    return term


def _scaled(rewrite, node_id, counts, like):
    """``(g, op, c)`` (``g`` a new id) when the node ``node_id`` is ``g`` scaled by a
    constant ``c`` and read once, ``g`` of ``like``'s dtype; else ``None``."""
    graph = rewrite.old
    node = graph[node_id]
    if node.kind != "op" or counts.get(node_id) != 1:
        return None
    found = scaling(graph, node)
    if found is None or graph[found[0]].dtype != like.dtype:
        return None
    return rewrite.ids[found[0]], found[1], found[2]


def _product_of_scalings(rewrite, node, counts):
    left, right = (_scaled(rewrite, i, counts, node) for i in node.inputs)
    if not (left and right):
        return None
    (a, left_op, c), (b, right_op, d) = left, right
    op, factor = combined(left_op, c, right_op, d)
    if not finite_nonzero(factor) or np.size(factor) > FOLD_LIMIT:
        return None
    product = Term(multiply, (a, b), {})
    if abstract_of(rewrite.new, product)[1] != node.dtype:
        return None  # ``a * b`` would round to a narrower dtype than the product did
    return Term(op, (product, factor_value(factor)), {})


def _reduction_of_scaling(rewrite, node, counts):
    scaled = _scaled(rewrite, node.inputs[0], counts, node)
    if not scaled or np.ndim(scaled[2]) != 0:
        return None
    g, op, c = scaled
    reduced = Term(node.primitive, (g,), node.params)
    if op is multiply and not isinstance(c, np.ndarray) and c == -1:  # a negation
        return Term(negative, (reduced,), {})
    return Term(op, (reduced, factor_value(c)), {})


def _added(rewrite, arg, like):
    """A ``Term``'s argument as a new id: inner terms and constants added to the graph."""
    if isinstance(arg, int):
        return arg
    if isinstance(arg, Term):
        inputs = tuple(_added(rewrite, a, like) for a in arg.inputs)
        return new_op(rewrite, arg.primitive, inputs, arg.params, like)
    return rewrite.constant(arg.value)  # a constant the rewrite needs
