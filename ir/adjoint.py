"""Reverse-mode differentiation: one walk, and the IR-to-IR adjoint pass built on it.

``backward`` walks op entries in reverse, calls each primitive's VJP rule
and accumulates cotangents.  It does not care what the values are: with
symbols it builds the adjoint graph (``adjoint``), with the tracer's tensors
it evaluates the adjoint as it goes (eager ``tape.gradient``, recorded by any
outer tape), with plain arrays it just computes.
"""

import numpy as np

from ir.graph import Graph
from ir.primitive import PRIMITIVES, is_trainable
from ir.primitives.elementwise import add
from ir.primitives.shape import cast


def backward(entries, seeds, sources, values, *, visit=None):
    """Cotangents of ``sources`` given cotangent ``seeds`` of later values.

    ``entries`` are op entries in evaluation order, each with ``prim``,
    ``params``, ``in_ids`` (one id per argument, ``None`` where no gradient
    can flow: constants, integer values) and ``out_id``.  ``seeds`` maps ids to
    cotangents; ``values(entry)`` gives ``(args, out)`` as the rules should see
    them.  ``visit(entry)``, if given, is called before an entry's rules run.
    Returns a dict from each reached source id to its cotangent.
    """
    sources = set(sources)
    live = set(sources)
    path = []
    for entry in entries:
        for i in entry.in_ids:
            if i is not None and i in live:
                path.append(entry)
                if entry.prim.no_gradient is None:
                    live.add(entry.out_id)
                break
    cotangents = {i: g for i, g in seeds.items() if i in live}
    for entry in reversed(path):
        out_id = entry.out_id
        g = cotangents.get(out_id) if out_id in sources else cotangents.pop(out_id, None)
        if g is None:
            continue
        if visit is not None:
            visit(entry)
        args, out = values(entry)
        joint = entry.prim.joint_vjp
        if joint is not None:
            joint_cotangents = joint(g, out, *args, **entry.params)
        for position, i in enumerate(entry.in_ids):
            if i is None or i not in live:
                continue
            if joint is not None:
                cotangent = joint_cotangents[position]
            else:
                rule = entry.prim.vjp_rule(position)
                if rule is None:
                    continue
                cotangent = rule(g, out, *args, **entry.params)
            if cotangent is None:
                continue
            previous = cotangents.get(i)
            cotangents[i] = cotangent if previous is None else add(previous, cotangent)
    return {i: cotangents[i] for i in sources if i in cotangents}


class GraphEntry:
    """An op node seen as a ``backward`` entry."""

    __slots__ = ("prim", "params", "in_ids", "out_id")

    def __init__(self, node, graph):
        self.prim = PRIMITIVES[node.op]
        self.params = node.params
        self.in_ids = tuple(i if is_trainable(graph[i].dtype) else None for i in node.inputs)
        self.out_id = node.id


def adjoint(graph, targets, sources, seeds=None):
    """The adjoint graph: ``graph``'s nodes, then the nodes computing d targets / d sources.

    ``targets`` and ``sources`` are node ids.  Targets are summed, each seeded
    with ones (or with the matching array of ``seeds``).  The result's
    ``outputs`` hold one node id per source, ``None`` where the source is not
    connected; each gradient has its source's dtype.  Adjoint nodes carry
    ``meta["adjoint_of"]``, the forward node whose rule made them.
    """
    from ir.symbolic import GraphBuilder

    builder = GraphBuilder(graph)
    out = builder.graph
    entries = [GraphEntry(node, out) for node in out if node.kind == "op"]
    seed_values = {}
    for k, target in enumerate(targets):
        node = out[target]
        if not is_trainable(node.dtype):
            continue
        seed = (np.ones(node.shape, node.dtype) if seeds is None
                else np.asarray(seeds[k], dtype=node.dtype))
        value = builder.constant(seed)
        previous = seed_values.get(target)
        seed_values[target] = value if previous is None else add(previous, value)

    def values(entry):
        node = out[entry.out_id]
        return tuple(builder.operand(i) for i in node.inputs), builder.symbol(node.id)

    def visit(entry):
        builder.adjoint_of = entry.out_id

    trainable = [s for s in sources if is_trainable(out[s].dtype)]
    cotangents = backward(entries, seed_values, trainable, values, visit=visit)
    builder.adjoint_of = None
    outputs = []
    for s in sources:
        cotangent = cotangents.get(s)
        if cotangent is None:
            outputs.append(None)
            continue
        symbol = builder.as_symbol(cotangent)
        if symbol.dtype != out[s].dtype:
            symbol = cast(symbol, dtype=out[s].dtype)
        outputs.append(symbol.id)
    out.outputs = outputs
    return out


def copy_graph(graph):
    """A new graph with the same nodes (node objects are shared; they are not mutated)."""
    out = Graph()
    out.nodes = dict(graph.nodes)
    out.outputs = list(graph.outputs)
    return out
