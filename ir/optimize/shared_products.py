"""An optimisation pass: vector-matrix products sharing their matrix, whose vectors do
not depend on each other's products, are one matrix product of the stacked vectors.

A loop unrolled by Python multiplies each step's input by the same weight,
``x_t @ U``; the inputs are known before the loop (constants, or slices of
one array), so the products are one ``stack(x) @ U`` before it, of which
each step reads its row, as hand-written code computes ``xs @ U`` first.  A
shared matrix on the left, ``U @ x_t``, is ``stack(x) @ U.T`` read by rows.

A vector is taken only if it depends on no product taken before it (in
evaluation order): the next step's state ``h_t @ W`` does, so a recurrence
stays as it is.  What the vectors are computed from moves before the first
product of its group, where the stacked product is.

Equal to the separate products up to rounding, not bit for bit: BLAS sums a
matrix product (``gemm``) in another order than a vector-matrix product
(``gemv``), each element a few units in the last place apart at most; the
same holds of a row read off any matrix product numpy computes.
"""

from ir.optimize.outer_products import stacked
from ir.primitives.linalg import matmul
from ir.primitives.shape import getitem, transpose
from ir.optimize.rewrite import Rewrite, unchanged
from ir.optimize.sums import concrete, new_op

MIN_PRODUCTS = 3
"""Fewest products stacked into one.  Three products of 4-vectors by a 4 x 8 matrix
take 2.2 us apart and 1.4 us stacked (at 64 x 64: 3.6 us against 2.0 us); two take as
long either way."""


def stack_shared_products(graph):
    """Compute the vector-matrix products of each matrix that do not depend on each
    other, at least ``MIN_PRODUCTS`` of them, as one product of their stacked vectors
    whose rows they read."""
    groups = {group[0]: (group, sorted(pulls)) for group, pulls in _groups(graph)}
    if not groups:
        return unchanged(graph, "stack_shared_products")
    rewrite = Rewrite(graph)
    rows = {}  # member id -> (new id of the stacked product, row)
    placed = set()
    for node in graph:
        group, pulled = groups.get(node.id, ((), ()))
        for early in pulled:
            if early not in placed:
                placed.add(early)
                rewrite.keep(graph[early])
        if node.id in placed:
            continue
        placed.add(node.id)
        if group:
            product = _stacked_product(rewrite, group)
            rows.update((member, (product, j)) for j, member in enumerate(group))
        if node.id in rows:
            product, j = rows[node.id]
            rewrite.keep(node, op=getitem, inputs=(product,), params={"key": (j,)})
            rewrite.changes += 1
        else:
            rewrite.keep(node)
    return rewrite.finish("stack_shared_products")


def _side(graph, node):
    """For a vector-matrix product ``node``: ``(matrix id, vector position)``, else ``None``."""
    if node.primitive is not matmul or not concrete(node.shape):
        return None
    a, b = (graph[i] for i in node.inputs)
    if len(a.shape) == 1 and len(b.shape) == 2:
        return b.id, 0
    if len(a.shape) == 2 and len(b.shape) == 1:
        return a.id, 1
    return None


def _groups(graph):
    """The products to stack, with the nodes their vectors are computed from: per matrix,
    side and vector dtype, those whose vector depends on no product taken before it.
    A group whose vectors come from another group's products waits for the next round."""
    candidates = {}
    for node in graph:
        side = _side(graph, node)
        if side is not None:
            vector = graph[node.inputs[side[1]]]
            candidates.setdefault((*side, vector.dtype), []).append(node.id)
    chosen, taken = [], set()
    for members in candidates.values():
        group = _independent(graph, members) if len(members) >= MIN_PRODUCTS else []
        if len(group) < MIN_PRODUCTS:
            continue
        pulls = _pulls(graph, group)
        if not pulls & taken:
            chosen.append((group, pulls))
            taken.update(group)
    return [(group, pulls) for group, pulls in chosen if not pulls & taken]


def _independent(graph, members):
    """The ``members`` (products, in evaluation order) whose vector depends on no member
    taken before it."""
    wanted = set(members)
    taken, downstream = [], set()
    for node in graph:
        if node.id in wanted and node.inputs[_side(graph, node)[1]] not in downstream:
            taken.append(node.id)
            downstream.add(node.id)
        elif any(i in downstream for i in node.inputs):
            downstream.add(node.id)
    return taken


def _pulls(graph, group):
    """The nodes the vectors of ``group`` are computed from, themselves included."""
    return graph.upstream([graph[m].inputs[_side(graph, graph[m])[1]] for m in group])


def _stacked_product(rewrite, group):
    """The new id of the product of ``group``'s stacked vectors and its matrix (transposed
    when it is on the left), whose row ``j`` is the ``j``-th product."""
    graph = rewrite.old
    first = graph[group[0]]
    matrix, position = _side(graph, first)
    vectors = [graph[m].inputs[position] for m in group]
    rows = stacked(rewrite, vectors, graph[vectors[0]].shape[0], first)
    shared = rewrite.ids[matrix]
    if position == 1:
        shared = new_op(rewrite, transpose, (shared,), {"axes": (1, 0)}, first)
    return new_op(rewrite, matmul, (rows, shared), {}, first)
