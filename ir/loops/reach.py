"""How far a gradient, or any dependency, reaches through loops and branches: into
their bodies, around a loop's carries over any number of steps, and out through
the results.  ``tape.explain`` follows gradients with it, a while loop asks it
whether its arguments decide the number of steps, and a reverse loop asks it
which carries' cotangents reach a wanted one.

It reads only what each primitive says of itself (``Primitive.results``) when
asked, never at import, so the loop primitives may use it.
"""

from ir.graph import bodies_of
from ir.primitive import is_trainable
from ir.primitives.results import result


def reached_results(prim, params, positions, differentiable=True):
    """The results of a loop or branch to which a gradient flows from its arguments at
    ``positions``, following the chain rule through its bodies and carries (any
    dependency at all, if not ``differentiable``)."""
    facts = prim.results
    if facts.reached is not None:
        return facts.reached(params, positions, differentiable)
    reached = reached_in_bodies(prim, params, positions, differentiable)
    origins = facts.origins(params)
    if not differentiable and facts.decided_by(params, positions, reached, reach):
        return set(range(len(origins)))
    found = {k for k, origin in enumerate(origins)
             if any(i in reached[name] for name, i in origin.nodes)}
    if facts.ran_no_steps(params):  # the final carries are the initial ones
        found |= set(positions) & set(params["body"].positions.carries)
    return found


def reached_in_bodies(prim, params, positions, differentiable=True):
    """``{body param: ids of the body's nodes}`` a gradient reaches (or, if not
    ``differentiable``, that depend at all on) from the loop's or branch's arguments at
    ``positions``, over any number of steps."""
    return {name: _through_steps(params[name],
                                 {params[name].inputs[k] for k, p in enumerate(arguments)
                                  if p in positions},
                                 name in prim.results.feeds_back, differentiable)
            for name, arguments in prim.results.arguments(params).items()}


def reached_over_steps(body, inputs):
    """The nodes of loop ``body`` a gradient reaches from its ``inputs`` over any number
    of steps."""
    return _through_steps(body, set(inputs), True, True)


def _through_steps(body, inputs, feeds_back, differentiable):
    """The body nodes reached from ``inputs`` over any number of steps: a new carry
    reached at one step reaches its carry input at the next."""
    while True:
        reached = reach(body.graph, inputs, differentiable)
        fed = {carry for carry, i in zip(body.carries, body.new_carries)
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
            results[node.id] = reached_results(node.primitive, node.params, positions,
                                               differentiable)
            passes = bool(results[node.id])
        elif node.primitive is result and node.inputs[0] in results:
            passes = node.params["index"] in results[node.inputs[0]]
        else:
            passes = not differentiable or any(node.primitive.vjp_rule(p) is not None
                                               for p in positions)
        if passes:
            reached.add(node.id)
    return reached
