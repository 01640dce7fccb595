"""Optimisation passes: a sum of outer products is one matrix product of stacked vectors,
and a sum of stacked vectors is the sum of the stack.

A weight read at every step of a loop unrolled by Python gets its gradient as
a sum of one outer product a step, ``sum_t a_t[:, None] * b_t[None, :]``: per
step an outer product and an addition of the weight's size.
``gather_summed_outer_products`` writes it as hand-written backpropagation
through time does, ``stack(a).T @ stack(b)``, stacking the vectors along a
new first axis (constant columns into one constant).  The bias's gradient is
then the sum of the same ``b_t``, which ``sum_stacked_terms`` reads off their
stack, ``np.sum(stack(b), axis=0)``: the stacks are one node (common
subexpressions), ordered by the rows' ids so the gradients of the weights
read at one step share them.  ``ir.loops.passes.gather_outer_products`` does the
same for the carries of a loop that stayed a loop.

A matrix product sums in its own order, so a gathered sum equals the terms'
sum up to rounding; a sum of a stack over its first axis adds the rows in
order, as the additions did where they ran in the stack's order.
"""

import numpy as np

from ir.primitives.elementwise import multiply
from ir.primitives.linalg import matmul
from ir.primitives.reductions import sum_
from ir.primitives.shape import reshape, stack, transpose
from ir.optimize.rewrite import unchanged
from ir.optimize.sums import add_chain, new_op, regroup_sums

MIN_TERMS = 2
"""Fewest outer products gathered into one product.  Stacked with ``np.array``, two
8-vectors and their product cost 1.6 us where two outer products and their sum cost
2.8 us (at 64 x 64: 2.3 us against 11 us)."""

STACK_LIMIT = 1 << 16
"""Most elements the stacks of a gathered product hold beyond four times the product's
size: a long sum of small outer products stacks its vectors as backpropagation
through time does, a long sum of large ones is left as it is."""


def gather_summed_outer_products(graph):
    """Write each sum of at least ``MIN_TERMS`` outer products ``a[:, None] * b`` (a
    column ``(n, 1)`` times a row ``(m,)`` or ``(1, m)``, read by the sum alone) as
    ``stack(a).T @ stack(b)``, one product for the terms of each pair of dtypes."""
    return regroup_sums(graph, "gather_summed_outer_products", _gathered,
                        lambda graph, root, terms: len(root.shape) == 2 and sum(
                            graph[t].primitive is multiply for t in terms) >= MIN_TERMS)


def _gathered(rewrite, root, terms, counts):
    """The new id of ``root``'s sum with its outer products gathered, else ``None``."""
    graph = rewrite.old
    if len(root.shape) != 2:
        return None
    groups = {}
    for term in terms:
        factors = _outer_factors(graph, graph[term], root, counts)
        if factors is not None:
            column, row = graph[factors[0]], graph[factors[1]]
            groups.setdefault((column.dtype, row.dtype), []).append((term, *factors))
    n, m = root.shape
    groups = [g for g in groups.values()
              if len(g) >= MIN_TERMS and len(g) * (n + m) <= max(STACK_LIMIT, 4 * n * m)]
    if not groups:
        return None
    gathered = {term for group in groups for term, _, _ in group}
    parts = [rewrite.ids[t] for t in terms if t not in gathered]
    for group in groups:
        group.sort(key=lambda found: _row_order(rewrite, found[2]))
        columns = stacked(rewrite, [c for _, c, _ in group], n, root)
        rows = stacked(rewrite, [r for _, _, r in group], m, root)
        turned = new_op(rewrite, transpose, (columns,), {"axes": (1, 0)}, root)
        parts.append(new_op(rewrite, matmul, (turned, rows), {}, root))
    return add_chain(rewrite, parts, like=root)


def _outer_factors(graph, node, root, counts):
    """``(column, row)`` ids when ``node`` is an outer product of ``root``'s shape and
    dtype that only the sum reads, else ``None``."""
    if (node.primitive is not multiply or counts.get(node.id) != 1 or node.shape != root.shape
            or node.dtype != root.dtype):
        return None
    n, m = root.shape
    for column, row in (node.inputs, node.inputs[::-1]):
        if graph[column].shape == (n, 1) and graph[row].shape in ((m,), (1, m)):
            return column, row
    return None


def _row_order(rewrite, row):
    """Rows computed by ops in the order they are computed, constants after them: sums
    over the same rows stack them alike."""
    node = rewrite.old[row]
    return (0, rewrite.ids[row]) if node.kind != "constant" else (1, 0)


def stacked(rewrite, ids, length, like):
    """The new id of the old nodes ``ids`` (each ``length`` elements, as a column, a row
    or a vector) stacked along a new first axis: one constant if all are constants."""
    graph = rewrite.old
    vectors = [_vector(rewrite, graph[i], length, like) for i in ids]
    if all(isinstance(v, np.ndarray) for v in vectors):
        return rewrite.constant(np.stack(vectors))
    inputs = [rewrite.constant(v) if isinstance(v, np.ndarray) else v for v in vectors]
    return new_op(rewrite, stack, inputs, {"axis": 0}, like)


def _vector(rewrite, node, length, like):
    """``node``'s elements as a vector: a constant's value, the vector a reshape made
    the column or row of, else a new reshape of it (a new id)."""
    if node.kind == "constant" and node.value is not None:
        return np.reshape(node.value, (length,))
    if node.shape == (length,):
        return rewrite.ids[node.id]
    if node.primitive is reshape and rewrite.old[node.inputs[0]].shape == (length,):
        return rewrite.ids[node.inputs[0]]
    return new_op(rewrite, reshape, (rewrite.ids[node.id],), {"shape": (length,)}, like)


def sum_stacked_terms(graph):
    """Write a sum whose terms, of the sum's shape and floating dtype, are the vectors of a
    stack along a new first axis as the sum over that axis of the stack."""
    stacks = {}
    for node in graph:
        if node.primitive is stack and node.params["axis"] == 0:
            stacks.setdefault(tuple(sorted(node.inputs)), node)
    if not stacks:
        return unchanged(graph, "sum_stacked_terms")

    def summed(rewrite, root, terms, counts):
        found = stacks.get(tuple(sorted(terms)))
        if found is None or root.dtype.kind not in "fc" or any(
                graph[t].shape != root.shape or graph[t].dtype != root.dtype for t in terms):
            return None
        stacked = new_op(rewrite, stack, [rewrite.ids[i] for i in found.inputs],
                         {"axis": 0}, found)
        return new_op(rewrite, sum_, (stacked,), {"axis": (0,), "keepdims": False}, root)
    return regroup_sums(graph, "sum_stacked_terms", summed,
                        lambda graph, root, terms: tuple(sorted(terms)) in stacks)
