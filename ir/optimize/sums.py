"""Sums of many terms, as the passes that regroup them see them: a tree of ``add`` nodes
read only by each other is one sum of its leaves.

Adjoint graphs accumulate a value's cotangent one use at a time, so a weight
read at every step of an unrolled loop gets a chain of fifty additions.
``sum_trees`` finds such sums, ``regroup_sums`` makes a pass of a rewrite of
their terms (``ir.optimize.outer_products``).
"""

import dataclasses

from ir.primitives.elementwise import add
from ir.optimize.rewrite import WHOLE_VALUE_MARKS, Rewrite, unchanged
from ir.optimize.simplify import Term, abstract_of


def reader_counts(graph, readers=None):
    """How many times each node is read, by other nodes (those in ``readers``, if given)
    or as an output."""
    counts = {}
    for node in graph:
        if readers is None or node.id in readers:
            for i in node.inputs:
                counts[i] = counts.get(i, 0) + 1
    for o in graph.outputs:
        if o is not None:
            counts[o] = counts.get(o, 0) + 1
    return counts


def sum_trees(graph, counts):
    """``{root id: [term ids, left to right]}`` for each largest tree of at least two
    ``add`` nodes' terms: an ``add`` belongs to the tree of its reader when that reader
    is an ``add`` of the same shape and dtype and nothing else reads it."""
    inner = set()
    for node in graph:
        if node.primitive is add and concrete(node.shape):
            for i in node.inputs:
                child = graph[i]
                if (child.primitive is add and counts.get(i) == 1 and child.shape == node.shape
                        and child.dtype == node.dtype):
                    inner.add(i)
    trees = {}
    for node in graph:
        if node.primitive is add and node.id not in inner and concrete(node.shape):
            trees[node.id] = _terms(graph, node.id, inner)
    return trees


def _terms(graph, root, inner):
    terms, pending = [], [root]
    while pending:
        node_id = pending.pop()
        if node_id == root or node_id in inner:
            pending.extend(reversed(graph[node_id].inputs))
        else:
            terms.append(node_id)
    return terms


def concrete(shape):
    """Whether every size of ``shape`` is a number (no symbolic ``ir.sizes.dims`` size)."""
    return all(isinstance(d, int) for d in shape)


def add_chain(rewrite, terms, like):
    """The new id of the left-to-right sum of the new ids ``terms``; each ``add`` takes
    the line and marks of ``like``, an old node."""
    total = terms[0]
    for term in terms[1:]:
        total = new_op(rewrite, add, (total, term), {}, like)
    return total


def new_op(rewrite, primitive, inputs, params, like):
    """Add an op of ``primitive`` on the new ids ``inputs`` to the new graph, its shape and
    dtype the primitive's, its line and marks those of the old node ``like``."""
    shape, dtype = abstract_of(rewrite.new, Term(primitive, tuple(inputs), params))
    return rewrite.new.add_node("op", primitive, inputs, params, shape, dtype, source=like.source,
                                meta=_step_marks(rewrite, like)).id


def _step_marks(rewrite, like):
    """``like``'s marks, less those that name a whole value (they stay with the node that
    computes it)."""
    return {k: v for k, v in rewrite.meta_of(like).items()
            if k not in WHOLE_VALUE_MARKS}


def regroup_sums(graph, name, regrouped, candidate):
    """A pass: each sum tree of ``graph`` whose terms ``regrouped(rewrite, root, terms,
    counts)`` rewrites (returning the new id of the whole sum, else ``None``) is replaced
    by that, which takes the root's name and marks; the rest is kept.  Only trees that
    ``candidate(graph, root, terms)`` (a cheap look at them) allows are tried; with none,
    the graph is not rebuilt at all."""
    counts = reader_counts(graph)
    trees = {root: terms for root, terms in sum_trees(graph, counts).items()
             if candidate(graph, graph[root], terms)}
    if not trees:
        return unchanged(graph, name)
    rewrite = Rewrite(graph)
    for node in graph:
        first_new = len(rewrite.new)
        total = regrouped(rewrite, node, trees[node.id], counts) if node.id in trees else None
        if total is None:
            rewrite.keep(node)
        elif total < first_new:
            rewrite.replace(node, total)
        else:
            rewrite.new.nodes[total] = dataclasses.replace(
                rewrite.new[total], name=node.name, meta=rewrite.meta_of(node))
            rewrite.ids[node.id] = total
            rewrite.changes += 1
    return rewrite.finish(name)
