"""Optimisation passes over IR graphs: each small, all run to a fixed point by ``optimize``.

Adjoint graphs are built rule by rule, so they repeat themselves (each use of
a ``tanh`` brings its own ``1 - out * out``), push seeds of ones through
reshapes and broadcasts, and keep forward values no gradient reads.  Each
pass removes one kind of waste; ``optimize`` runs them in turn until none
finds anything more, so each pass can stay short and local, as in Tangent's
``optimization.py``.

Every rewrite keeps each surviving node's shape and dtype exactly, numpy's
weak typing of Python scalars included (``f32 * 2.0`` is float32 while
``f32 * np.asarray(2.0)`` is float64), and none assumes values are finite:
there is no ``x * 0 -> 0``, ``x - x -> 0`` or ``x / x -> 1``.  Some rewrites
can differ from the graph they replace in the last bits: folding constant
factors (``(g * 2.0) * 0.5 -> g``: rounded once instead of twice, and an
intermediate product that would overflow no longer does) and moving them out
of products and sums (``sum(x * c) -> sum(x) * c``), merging nested
``sum_to``, gathering a sum of outer products into one matrix product and
vector-matrix products into rows of one (another summation order), and
``x + 0 -> x``, which keeps the sign of a negative zero.  The tests hold
optimised graphs to unoptimised ones within 1e-12 of the largest magnitude.

A pass never mutates its input graph or its nodes.  It returns a new graph,
numbered 0..n-1 in evaluation order, whose ``stats`` give the op counts before
and after and how many nodes the pass removed or rewrote.  Adjoint nodes keep
``meta["adjoint_of"]``, renumbered, and also get ``meta["adjoint_source"]``, the
source line of the node they differentiate, which outlives that node when
dead code elimination removes it (``adjoint_of`` is then ``None``).  Tangent
nodes keep ``meta["jvp_of"]`` and get ``meta["jvp_source"]`` the same way.

This module holds the driver and the passes over whole nodes (dead code,
common subexpressions, folding); ``ir.optimize.rewrite`` the machinery every pass
shares, ``ir.optimize.simplify`` the algebraic rules, ``ir.optimize.polynomials`` Horner form,
``ir.optimize.sums`` long sums as trees of terms, which ``ir.optimize.outer_products`` regroups,
``ir.optimize.shared_products`` products sharing a matrix, ``ir.optimize.scatters`` sums of
scatters, ``ir.optimize.factors`` constant factors moved out of products and sums.
"""

import dataclasses

import numpy as np

from ir.canonical import canonical
from ir.loops.body import Body, split_like
from ir.loops.passes import (drop_unread_results, gather_outer_products, has_scans,
                             hoist_invariants, reuse_stacks, unpack_results)
from ir.optimize.batch_products import gather_summed_batch_products, sum_concatenated_terms
from ir.optimize.factors import move_constant_factors
from ir.optimize.outer_products import gather_summed_outer_products, sum_stacked_terms
from ir.optimize.polynomials import collect_polynomials
from ir.optimize.rewrite import FOLD_LIMIT, Rewrite, op_count
from ir.optimize.scatters import merge_scatters
from ir.optimize.shared_products import stack_shared_products
from ir.optimize.simplify import simplify
from ir.primitives.custom_rules import custom_vjp
from ir.primitives.results import result
from ir.sizes.shape_rules import has_sizes


# --- the driver ---------------------------------------------------------------

def optimize(graph):
    """A new graph computing ``graph.outputs`` with every pass run until none changes anything,
    then run over the bodies of its loops and branches (``optimize_body``).

    ``stats`` on the result: ``ops_before``/``ops_after`` (op nodes),
    ``nodes_before``/``nodes_after``, ``rounds``, and for each pass by name the
    nodes it removed or rewrote over all rounds.
    """
    loops = any(node.dtype.kind == "O" for node in graph)  # loops or branches
    passes = PASSES + LOOP_PASSES if loops else PASSES
    stats = {"ops_before": op_count(graph), "nodes_before": len(graph), "rounds": 0}
    stats.update(dict.fromkeys((p.__name__ for p in passes), 0))
    # A pass that changed nothing in a graph would change nothing in it again: the
    # graph is at the fixed point once every pass in a row has left it as it was.
    # That is the round with no change, cut short at the pass that last changed it.
    unchanged = 0  # passes in a row that changed nothing
    while unchanged < len(passes):
        stats["rounds"] += 1
        for optimization in passes:
            graph = optimization(graph)
            count = graph.stats[optimization.__name__]
            stats[optimization.__name__] += count
            unchanged = 0 if count else unchanged + 1
            if unchanged == len(passes):
                break
    if loops:
        graph = _optimize_bodies(graph)
    stats.update(ops_after=op_count(graph), nodes_after=len(graph))
    graph.stats = stats
    return graph


def optimize_to_run(graph):
    """``optimize`` for a graph that is run (eagerly or as generated code): its loops stop
    stacking, keeping and carrying what nothing reads (``drop_unread_results``); a loop
    that stops reading a value another loop kept lets that loop stop keeping it, so this
    repeats until nothing more goes.  What it runs may still be recorded and
    differentiated: a loop that no longer keeps a value recomputes it when it must."""
    graph = optimize(graph)
    while has_scans(graph):
        trimmed = drop_unread_results(graph)
        if not trimmed.stats["drop_unread_results"]:
            break
        graph = optimize(trimmed)
    return graph


def without_custom_rules(graph):
    """``graph`` with each ``custom_vjp`` node, in its bodies too, replaced by the value it
    passes on: generated code, which is never differentiated, needs no gradient rule."""
    rewrite = Rewrite(graph)
    for node in graph:
        if node.primitive is custom_vjp:
            rewrite.replace(node, rewrite.ids[node.inputs[0]])
        elif node.kind == "op" and node.primitive.results is not None:
            rewrite.keep(node, params=_bodies_mapped(node, _body_without_custom_rules))
        else:
            rewrite.keep(node)
    return rewrite.finish("without_custom_rules")


def _body_without_custom_rules(body, kept):
    return _body_rewritten(body, kept, without_custom_rules)


def optimize_body(body, kept=()):
    """``body`` optimised, its inputs and outputs kept, with the body nodes ``kept``
    computed too: ``(body, ids of kept)``.  Bodies inside it are optimised as well."""
    return _body_rewritten(body, kept, lambda graph: optimize(_optimize_bodies(graph)))


def _body_rewritten(body, kept, rewritten):
    """``body`` with its graph ``rewritten`` by a pass, its inputs, outputs and the nodes
    ``kept`` followed to their new ids: ``(body, ids of kept)``."""
    graph = body.graph.copy()
    graph.outputs = [*graph.outputs, *kept, *body.inputs]  # so no input is dropped
    new = rewritten(graph)
    new.outputs, kept, inputs = split_like(new.outputs, body.graph.outputs, kept)
    return Body.of(new, *body.split_inputs(inputs)), tuple(kept)


def _optimize_bodies(graph):
    """``graph`` (a copy) with the bodies its loops and branches hold optimised; a loop's
    ``keep`` follows the nodes it names."""
    out = graph.copy()
    for node in graph:
        facts = node.primitive.results if node.kind == "op" else None
        if facts is not None and facts.bodies:
            params = _bodies_mapped(node, optimize_body)
            out.nodes[node.id] = dataclasses.replace(node, params=params)
    return out


def _bodies_mapped(node, change):
    """The params of a loop or branch ``node`` with ``change(body, kept)`` applied to each
    of its bodies; the params listing a body's nodes (``keep``) follow them."""
    facts = node.primitive.results
    params = dict(node.params)
    for name in facts.bodies:
        lists = [key for key, body in facts.node_lists.items() if body == name]
        kept = [i for key in lists for i in params[key]]
        params[name], new_kept = change(params[name], kept)
        for key in lists:
            params[key], new_kept = new_kept[:len(params[key])], new_kept[len(params[key]):]
    return params


# --- dead code and common subexpressions ------------------------------------------

def eliminate_dead_code(graph):
    """Drop every node, leaves included, that no output or effect (a print) depends on.  A
    node with several results keeps every ``result`` node: what differentiates it reads
    them."""
    live = graph.upstream(list(graph.outputs) + effects(graph))
    live.update(n.id for n in graph if n.primitive is result and n.inputs[0] in live)
    rewrite = Rewrite(graph)
    for node in graph:
        if node.id in live:
            rewrite.keep(node)
    rewrite.changes = len(graph) - len(live)
    return rewrite.finish("eliminate_dead_code")


def eliminate_common_subexpressions(graph):
    """Compute each value once: an op with the same primitive, inputs and params as an
    earlier one, or a constant equal to an earlier one, becomes that earlier node.

    Derivative rules add a node per use (two ``1 - out * out`` for one ``tanh``
    read twice, a fresh constant ``1`` each time); this is what keeps
    higher-order graphs from doubling with each order.
    """
    rewrite = Rewrite(graph)
    first = {}
    for node in graph:
        key = _value_key(node, rewrite.inputs(node))
        if key in first:
            rewrite.replace(node, first[key])
        else:
            new = rewrite.keep(node)
            if key is not None:
                first[key] = new.id
    return rewrite.finish("eliminate_common_subexpressions")


def _value_key(node, inputs):
    """Equal for two nodes exactly when they compute the same value; ``None`` for inputs
    and variables, which the caller supplies."""
    if node.kind == "op":
        if node.primitive.effect is not None:
            return None
        if node.primitive.commutative:
            inputs = tuple(sorted(inputs))
        return node.op, inputs, canonical(node.params)
    if node.kind == "constant" and node.value is not None:
        return "constant", canonical(node.value)
    return None


def effects(graph):
    """The nodes that do something besides computing a value (``Primitive.effect``): kept,
    as outputs are."""
    return [node.id for node in graph if node.kind == "op" and node.primitive.effect]


# --- constant folding ---------------------------------------------------------------

def fold_constants(graph):
    """Replace an op whose inputs are all constants by the constant it computes, when that
    has at most ``FOLD_LIMIT`` elements: larger literals would bloat generated code."""
    rewrite = Rewrite(graph)
    for node in graph:
        value = _folded(rewrite.new, node, rewrite.inputs(node)) if node.kind == "op" else None
        if value is None:
            rewrite.keep(node)
        else:
            rewrite.changes += 1
            rewrite.keep(node, kind="constant", op="constant", inputs=(), params={}, value=value,
                         name=node.name or _folded_name(rewrite.new, node, rewrite.inputs(node)))
    return rewrite.finish("fold_constants")


def _folded_name(graph, node, inputs):
    """A folded value's name in listings: its one named array input and the op
    (``x_transpose``), so a reader sees where the constant came from."""
    named = [graph[i].name for i in inputs if graph[i].name and graph[i].shape]
    return f"{named[0]}_{node.op}" if len(named) == 1 else None


def _folded(graph, node, inputs):
    """``node``'s value as an array (op results are never weakly typed), or ``None``."""
    args = [graph[i] for i in inputs]
    if (not all(a.kind == "constant" and a.value is not None for a in args)
            or node.primitive.python_only or node.primitive.effect is not None
            or node.dtype.kind == "O"
            or has_sizes([(node.shape, node.dtype)], node.params)
            or np.prod(node.shape) > FOLD_LIMIT):
        return None
    with np.errstate(all="ignore"):
        value = np.array(node.primitive(*(a.value for a in args), **node.params))
    return value if value.shape == node.shape and value.dtype == node.dtype else None


PASSES = (eliminate_dead_code, fold_constants, simplify, eliminate_common_subexpressions,
          collect_polynomials, gather_summed_outer_products, sum_stacked_terms,
          gather_summed_batch_products, sum_concatenated_terms,
          stack_shared_products, merge_scatters, move_constant_factors)
"""One round of ``optimize``, in order."""

LOOP_PASSES = (hoist_invariants, unpack_results, gather_outer_products, reuse_stacks)
"""Added to each round for a graph with loops or branches (``ir.loops.passes``)."""
