"""What a node with several results is made of, read from its params without running it:
each such primitive says so itself (``Primitive.results``), and this module reads it.

Listings and pictures show such a node (a loop, a branch, ``packed``) by the
types of its results; the JSON reader allows the object dtype only on nodes of
``SEVERAL_RESULTS`` and bodies only in the ``BODY_PARAMS`` of loops and
branches; and ``tape.explain`` follows a gradient into a loop's bodies
(``reach``), which needs to know which argument each body input receives
(``body_arguments``) and which body value each result comes from
(``result_origins``).
"""

from ir.graph import bodies_of, graph_method
from ir.primitive import PRIMITIVES, is_trainable

SEVERAL_RESULTS = frozenset(name for name, prim in PRIMITIVES.items() if prim.results)
"""The primitives whose nodes have several results: the only ones of object dtype."""

BODY_PARAMS = {name: prim.results.bodies for name, prim in PRIMITIVES.items()
               if prim.results and prim.results.bodies}
"""The params holding the bodies of each loop and branch primitive."""

BODY_NODE_LISTS = {name: prim.results.node_lists for name, prim in PRIMITIVES.items()
                   if prim.results and prim.results.node_lists}
"""Params that list nodes of a body (``keep``: the per-step values kept for the
gradient), with the body param whose nodes they name."""


@graph_method
def result_types(graph, node):
    """``(shape, dtype)`` of each result of ``node``, or ``None`` when its primitive is not
    one of ``SEVERAL_RESULTS``."""
    facts = PRIMITIVES[node.op].results
    return None if facts is None else facts.types(graph, node)


def result_origins(op, params):
    """The ``Origin`` of each result of a loop or branch, in result order."""
    return PRIMITIVES[op].results.origins(params)


def body_arguments(op, params):
    """``{body param: [argument position of each body input]}`` of a loop or branch."""
    return PRIMITIVES[op].results.arguments(params)


def reached_results(op, params, positions, differentiable=True):
    """The results of a loop or branch to which a gradient flows from its arguments at
    ``positions``, following the chain rule through its bodies and carries (any
    dependency at all, if not ``differentiable``)."""
    reached = reached_in_bodies(op, params, positions, differentiable)
    origins = result_origins(op, params)
    facts = PRIMITIVES[op].results
    if not differentiable and facts.decided_by(params, positions, reached, reach):
        return set(range(len(origins)))
    found = {k for k, origin in enumerate(origins)
             if any(i in reached[name] for name, i in origin.nodes)}
    if facts.ran_no_steps(params):  # the final carries are the initial ones
        found |= set(positions) & set(range(params["body"].carries))
    return found


def reached_in_bodies(op, params, positions, differentiable=True):
    """``{body param: ids of the body's nodes}`` a gradient reaches (or, if not
    ``differentiable``, that depend at all on) from the loop's or branch's arguments at
    ``positions``, over any number of steps."""
    return {name: _through_steps(params[name],
                                 {params[name].inputs[k] for k, p in enumerate(arguments)
                                  if p in positions},
                                 name in PRIMITIVES[op].results.feeds_back, differentiable)
            for name, arguments in body_arguments(op, params).items()}


def _through_steps(body, inputs, feeds_back, differentiable):
    """The body nodes reached from ``inputs`` over any number of steps: a new carry
    reached at one step reaches its carry input at the next."""
    while True:
        reached = reach(body.graph, inputs, differentiable)
        fed = {body.inputs[k] for k, i in enumerate(body.graph.outputs[:body.carries])
               if feeds_back and i in reached} - inputs
        if not fed:
            return reached
        inputs = inputs | fed


def reach(graph, sources, differentiable=True):
    """The ids of ``sources`` and of the nodes of ``graph`` a gradient flows to from them
    (through the inputs each primitive differentiates, into trainable values), or, if
    not ``differentiable``, that depend on them at all; into a loop's or branch's bodies
    and out through the results they give."""
    reached = set(sources)
    results = {}  # loop or branch node -> the indices of its results reached
    for node in graph:
        if node.kind != "op" or (differentiable and not is_trainable(node.dtype)):
            continue
        positions = {p for p, i in enumerate(node.inputs) if i in reached}
        if not positions:
            continue
        if bodies_of(node):
            results[node.id] = reached_results(node.op, node.params, positions, differentiable)
            passes = bool(results[node.id])
        elif node.op == "result" and node.inputs[0] in results:
            passes = node.params["index"] in results[node.inputs[0]]
        else:
            passes = not differentiable or any(PRIMITIVES[node.op].vjp_rule(p) is not None
                                               for p in positions)
        if passes:
            reached.add(node.id)
    return reached
