"""``tape.explain`` through loops and branches.

A loop (``tracer.scan``, ``while_loop``, ``cond``) is one record whose rule
differentiates every argument it can, so the records alone show a path through
it wherever the source reaches one of its arguments.  Its bodies decide which of
its results a gradient really reaches (``ir.loops.structure``): a body that
passes no gradient on (a ``stop_gradient``, an integer step, a value only a
while loop's test reads) cuts the path inside the loop, and the explanation
names the loop's line and the op in the body where it broke.  A result of
integer dtype is named by what it is to the loop (a final carry, the number of
steps) and by the body op that computes it.
"""

from dataclasses import dataclass

from ir.graph import bodies_of
from ir.loops.reach import reached_in_bodies, reached_results
from ir.loops.structure import body_params
from ir.primitive import is_trainable
from ir.primitives.results import result


@dataclass(frozen=True)
class LoopCut:
    """Where a loop on the path stops the gradient: its ``record``, the ``roles`` of the
    results the target needs that no gradient reaches, and the ``trail`` into its
    bodies to the op to blame: ``(body param, node, roles)`` steps, ``roles`` given
    where the node is a loop inside the body, which cuts in turn (empty when no
    single op is to blame)."""

    record: object
    roles: tuple
    trail: tuple


def reached_serials(records, sources, serials_of, differentiable):
    """The serials reached from ``sources`` along ``records``, and the loops met on the
    way, as ``{serial: (record, positions reached, results reached)}``.

    ``serials_of(record)`` gives the serial of each argument (or ``None``).  If
    ``differentiable``, a record passes on what reaches an argument its rule
    differentiates into a trainable result; else anything passes on.  A loop or
    branch passes on only to the results its bodies carry that to.
    """
    reached, loops = set(sources), {}
    for record in records:
        serials = serials_of(record)
        positions = {p for p, i in enumerate(serials) if i is not None and i in reached}
        if not positions:
            continue
        if body_params(record.prim):
            results = reached_results(record.prim, record.params, positions, differentiable)
            loops[record.out_id] = (record, positions, results)
            passes = bool(results)
        elif record.prim is result and serials[0] in loops:
            passes = record.params["index"] in loops[serials[0]][2]
        else:
            passes = not differentiable or (is_trainable(record.out.dtype) and any(
                record.prim.vjp_rule(p) is not None for p in positions))
        if passes:
            reached.add(record.out_id)
    return reached, loops


def loop_cut(records, source_ids, target_id, on_path):
    """The first loop on the path from the sources to the target (``on_path``: the
    serials the target's gradient reaches through the records' rules) that passes no
    gradient to the results the target needs, or ``None`` when the gradient gets
    through every loop."""
    reached, loops = reached_serials(records, source_ids, lambda r: r.in_ids, True)
    if target_id in reached:
        return None
    return _first_cut(records, loops, on_path)


def _first_cut(records, loops, on_path):
    needed = {}  # a loop's serial -> the indices of its results on the path
    for record in records:
        if record.prim is result and record.out_id in on_path:
            needed.setdefault(record.in_ids[0], set()).add(record.params["index"])
    for serial, (record, positions, results) in loops.items():
        prim, params = record.prim, record.params
        missing = (needed.get(serial, set()) & reached_results(prim, params, positions, False)
                   - results)
        if serial in on_path and missing:
            return LoopCut(record, _roles(prim, params, missing),
                           tuple(_trail(prim, params, positions, missing)))
    return None


def _roles(prim, params, indices):
    origins = prim.results.origins(params)
    return tuple(origins[k].role for k in sorted(indices))


def _trail(prim, params, positions, missing):
    """The steps into a loop's bodies to the op that stops the gradient from its
    arguments at ``positions`` to its results ``missing``: the first op on a path to
    them that a gradient reaches an argument of but not the result of (bodies giving
    those results searched first), followed into a loop inside a body."""
    reached = reached_in_bodies(prim, params, positions)
    origins = prim.results.origins(params)
    wanted = {name: [i for k in missing for body, i in origins[k].nodes if body == name]
              for name in body_params(prim)}
    for name in sorted(body_params(prim), key=lambda name: not wanted[name]):
        graph = params[name].graph
        upstream = graph.upstream(wanted[name] or graph.outputs)
        for node in graph:
            if (node.kind == "op" and node.id in upstream and node.id not in reached[name]
                    and any(i in reached[name] for i in node.inputs)):
                return _into_loop(graph, name, node, reached[name], upstream)
    return []


def _into_loop(graph, name, node, reached, upstream):
    """The trail from a body's op that stops the gradient, going on into it when it is a
    loop (or a result of one) with bodies of its own."""
    loop, indices = node, {r.params["index"] for r in graph if r.primitive is result
                           and r.inputs[0] == node.id and r.id in upstream}
    if node.primitive is result and bodies_of(graph[node.inputs[0]]):
        loop, indices = graph[node.inputs[0]], {node.params["index"]}
    if not bodies_of(loop):
        return [(name, node, ())]
    positions = {p for p, i in enumerate(loop.inputs) if i in reached}
    return [(name, loop, _roles(loop.primitive, loop.params, indices)),
            *_trail(loop.primitive, loop.params, positions, indices)]


def integer_result(record, producers):
    """For a ``result`` record of a loop or branch: ``(loop record, role, body node)``,
    the body node that computes the result (``None`` for a count of steps); else
    ``None``."""
    loop = producers.get(record.in_ids[0]) if record.prim is result else None
    if loop is None or not body_params(loop.prim):
        return None
    origin = loop.prim.results.origins(loop.params)[record.params["index"]]
    nodes = [loop.params[name].graph[i] for name, i in origin.nodes]
    return loop, origin.role, next((n for n in nodes if n.kind == "op"), None)
