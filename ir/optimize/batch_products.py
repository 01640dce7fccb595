"""Optimisation passes: a sum of products ``A_t.T @ B_t`` is one product of the matrices
concatenated along their batch axis, and a sum of column sums ``np.sum(B_t, axis=0)``
is the column sum of their concatenation.

A weight read at every step of a batched loop unrolled by Python (an RNN over
a batch, ``h = np.tanh(x_t @ U + h @ W + b)``) gets its gradient as a sum of
one product a step, ``sum_t h_t.T @ d_t``, and its bias as ``sum_t
np.sum(d_t, axis=0)``: per step a small product or reduction and an addition.
``gather_summed_batch_products`` writes the weight's as hand-written
backpropagation through time does, ``np.concatenate(h).T @ np.concatenate(d)``,
and ``sum_concatenated_terms`` the bias's as ``np.sum(np.concatenate(d),
axis=0)``, reading the same concatenation (common subexpressions).  The vector
case, one row a step, is ``ir.optimize.outer_products``.

A matrix product sums in its own order, so a gathered sum equals the terms' sum
up to rounding.
"""

from ir.primitives.broadcast import sum_to
from ir.primitives.linalg import matmul
from ir.primitives.reductions import sum_
from ir.primitives.shape import concatenate, transpose
from ir.optimize.rewrite import unchanged
from ir.optimize.sums import add_chain, new_op, regroup_sums

MIN_TERMS = 3
"""Fewest products gathered into one.  At 32 x 8 by 32 x 16, three products and their
sum take 11 us, their concatenations and one product 9 us."""

CONCATENATION_LIMIT = 1 << 16
"""Most elements the concatenations of a gathered product hold beyond four times the
product's size: a long sum of small products is gathered as backpropagation through
time does, a long sum of large ones is left as it is."""


def gather_summed_batch_products(graph):
    """Write each sum of at least ``MIN_TERMS`` products ``A.T @ B`` (``A`` of shape
    ``(k, n)``, ``B`` of ``(k, m)``, each product read by the sum alone) as
    ``np.concatenate(As).T @ np.concatenate(Bs)``, one product for each pair of dtypes."""
    return regroup_sums(graph, "gather_summed_batch_products", _gathered,
                        lambda graph, root, terms: len(root.shape) == 2 and sum(
                            graph[t].primitive is matmul for t in terms) >= MIN_TERMS)


def _gathered(rewrite, root, terms, counts):
    """The new id of ``root``'s sum with its products gathered, else ``None``."""
    graph = rewrite.old
    groups = {}
    for term in terms:
        factors = _factors(graph, graph[term], root, counts)
        if factors is not None:
            left, right = graph[factors[0]], graph[factors[1]]
            groups.setdefault((left.dtype, right.dtype), []).append((term, *factors))
    n, m = root.shape
    groups = [g for g in groups.values() if len(g) >= MIN_TERMS and sum(
        graph[a].shape[0] for _, a, _ in g) * (n + m) <= max(CONCATENATION_LIMIT, 4 * n * m)]
    if not groups:
        return None
    gathered = {term for group in groups for term, _, _ in group}
    parts = [rewrite.ids[t] for t in terms if t not in gathered]
    for group in groups:
        group.sort(key=lambda found: rewrite.ids[found[2]])
        lefts = new_op(rewrite, concatenate, [rewrite.ids[a] for _, a, _ in group],
                       {"axis": 0}, root)
        rights = new_op(rewrite, concatenate, [rewrite.ids[b] for _, _, b in group],
                        {"axis": 0}, root)
        turned = new_op(rewrite, transpose, (lefts,), {"axes": (1, 0)}, root)
        parts.append(new_op(rewrite, matmul, (turned, rights), {}, root))
    return add_chain(rewrite, parts, like=root)


def _factors(graph, node, root, counts):
    """``(A, B)`` ids when ``node`` is ``A.T @ B`` of ``root``'s shape and dtype, with
    ``A`` and ``B`` computed (not constants) and sharing their first axis, that only the
    sum reads; else ``None``."""
    if (node.primitive is not matmul or counts.get(node.id) != 1 or node.shape != root.shape
            or node.dtype != root.dtype):
        return None
    turned, right = (graph[i] for i in node.inputs)
    if turned.primitive is not transpose or turned.params.get("axes") != (1, 0):
        return None
    left = graph[turned.inputs[0]]
    if (left.kind == "constant" or right.kind == "constant" or len(left.shape) != 2
            or len(right.shape) != 2 or left.shape[0] != right.shape[0]
            or not isinstance(left.shape[0], int)):
        return None
    return left.id, right.id


def _column_summed(graph, node):
    """The matrix ``node`` sums the columns of (``np.sum(B, axis=0)``, or the gradient
    rules' ``sum_to`` of ``B`` to one row), else ``None``."""
    if node.primitive is sum_ and node.params["axis"] == (0,) and not node.params["keepdims"]:
        return node.inputs[0]
    if node.primitive is sum_to:
        summed = graph[node.inputs[0]]
        if len(summed.shape) == 2 and tuple(node.params["shape"]) == summed.shape[1:]:
            return summed.id
    return None


def sum_concatenated_terms(graph):
    """Write a sum whose terms are column sums ``np.sum(B, axis=0)`` of the arrays a
    concatenation along axis 0 holds, all of them, as the column sum of that
    concatenation."""
    concatenations = {}
    for node in graph:
        if (node.primitive is concatenate and node.params["axis"] == 0
                and node.dtype.kind in "fc"):
            concatenations.setdefault(tuple(sorted(node.inputs)), node)
    if not concatenations:
        return unchanged(graph, "sum_concatenated_terms")

    def summed_arrays(graph, terms):
        arrays = [_column_summed(graph, graph[term]) for term in terms]
        return None if None in arrays else tuple(sorted(arrays))

    def summed(rewrite, root, terms, counts):
        found = concatenations.get(summed_arrays(rewrite.old, terms))
        if found is None or root.dtype != found.dtype or any(
                rewrite.old[t].shape != root.shape for t in terms):
            return None
        joined = new_op(rewrite, concatenate, [rewrite.ids[i] for i in found.inputs],
                        {"axis": 0}, found)
        return new_op(rewrite, sum_, (joined,), {"axis": (0,), "keepdims": False}, root)
    return regroup_sums(graph, "sum_concatenated_terms", summed,
                        lambda graph, root, terms: len(terms) >= MIN_TERMS
                        and summed_arrays(graph, terms) in concatenations)
