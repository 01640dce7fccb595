"""Passes over loops: ``hoist_invariants`` moves what a body computes the same at every
step before the loop, ``unpack_results`` reads a packed result straight from what was
packed (both among ``optimize``'s passes); ``drop_unread_results`` removes
the stacked outputs and kept values no node reads, so the body no longer computes them
and the loop no longer stacks them.  Generated code runs that one last; the graphs a
gradient is taken of keep every result (what differentiates a loop reads them).
"""

from ir.graph import NODE_REFERENCES, Node
from ir.loop_body import Body
from ir.primitive import PRIMITIVES
from ir.rewrite import Rewrite


def drop_unread_results(graph):
    """``graph`` with each scan's stacked outputs and kept values that no node reads left
    out of it; the ``result`` nodes of the others are renumbered to match."""
    used = {i for node in graph for i in node.inputs} | {o for o in graph.outputs
                                                        if o is not None}
    read = {}
    for node in graph:
        if node.op == "result" and node.id in used:
            read.setdefault(node.inputs[0], set()).add(node.params["index"])
    rewrite = Rewrite(graph)
    renumbered = {}
    for node in graph:
        if node.op == "scan":
            params, renumbered[node.id] = _scan_reading(node, read.get(node.id, set()))
            rewrite.keep(node, params=params)
        elif node.op == "result" and node.inputs[0] in renumbered:
            index = renumbered[node.inputs[0]].get(node.params["index"])
            if index is not None:
                rewrite.keep(node, params=dict(node.params, index=index))
            else:
                rewrite.changes += 1
        else:
            rewrite.keep(node)
    return rewrite.finish("drop_unread_results")


def _scan_reading(node, read):
    """The params of scan ``node`` giving only the stacked outputs and kept values at the
    result indices ``read`` (and every final carry), and each kept index's new one."""
    body, keep = node.params["body"], node.params["keep"]
    count = body.carries
    ys = body.graph.outputs[count:]
    kept_ys = [k for k in range(len(ys)) if count + k in read]
    kept_keep = [k for k in range(len(keep)) if count + len(ys) + k in read]
    index = {k: k for k in range(count)}
    index.update({count + k: count + j for j, k in enumerate(kept_ys)})
    index.update({count + len(ys) + k: count + len(kept_ys) + j
                  for j, k in enumerate(kept_keep)})
    trimmed = body.graph.copy()
    trimmed.outputs = [*body.graph.outputs[:count], *(ys[k] for k in kept_ys)]
    return (dict(node.params, body=Body(trimmed, body.inputs, count, body.xs),
                 keep=tuple(keep[k] for k in kept_keep)), index)


def hoist_invariants(graph):
    """Compute once, before its loop, what a loop's body computes from values that are the
    same at every step (its invariants and constants): the body reads the result as one
    more invariant.  A transposed weight matrix, or a rule's ``-k``, is then made once."""
    rewrite = Rewrite(graph)
    for node in graph:
        facts = PRIMITIVES[node.op].results if node.kind == "op" else None
        if not (facts and facts.feeds_back and _hoisted(rewrite, node, facts)):
            rewrite.keep(node)
    return rewrite.finish("hoist_invariants")


def _hoisted(rewrite, node, facts):
    """Hoist what ``node``'s body computes from its invariants alone; whether any was."""
    body = node.params["body"]
    graph = body.graph
    arguments = facts.arguments(node.params)["body"]
    first = body.carries + body.xs
    outer = {i: rewrite.ids[node.inputs[arguments[k]]]
             for k, i in enumerate(body.inputs) if k >= first}
    steady = set(outer)
    hoisted = []
    for inner in graph:
        if inner.kind == "op" and _movable(inner) and all(
                i in steady or graph[i].kind == "constant" for i in inner.inputs):
            steady.add(inner.id)
            hoisted.append(inner)
    used = _used_outside(body, hoisted)
    if not used:
        return False
    for inner in hoisted:
        for i in inner.inputs:
            if i not in outer:  # a constant
                outer[i] = rewrite.new.add_node("constant", "constant", (), {}, graph[i].shape,
                                                graph[i].dtype, value=graph[i].value).id
        meta = {k: v for k, v in inner.meta.items() if k not in NODE_REFERENCES}
        outer[inner.id] = rewrite.new.add_node(
            "op", inner.op, [outer[i] for i in inner.inputs], inner.params, inner.shape,
            inner.dtype, name=inner.name, source=inner.source, meta=meta).id
    trimmed = graph.copy()
    for node_id in used:
        old = trimmed[node_id]
        trimmed.nodes[node_id] = Node(node_id, "input", "input", (), {}, old.shape, old.dtype,
                                      name=old.name)
    new_body = Body(trimmed, [*body.inputs, *used], body.carries, body.xs)
    rewrite.keep(node, inputs=(*rewrite.inputs(node), *(outer[i] for i in used)),
                 params=dict(node.params, body=new_body))
    rewrite.changes += len(used)
    return True


def _movable(node):
    """Whether an op can run outside its loop: a plain computation (no loop of its own,
    no user's Python function)."""
    prim = PRIMITIVES[node.op]
    return not prim.results and node.op != "result" and prim.python_only is None


def _used_outside(body, hoisted):
    """The hoisted nodes that the rest of the body, its outputs or its kept values read."""
    inside = {n.id for n in hoisted}
    readers = [n for n in body.graph if n.kind == "op" and n.id not in inside]
    used = {i for n in readers for i in n.inputs if i in inside}
    used |= {i for i in body.graph.outputs if i in inside}
    return sorted(used)


def unpack_results(graph):
    """A result of a ``packed`` node is the array packed there (batching rules pack a
    loop's results so), so the node goes once nothing else reads it."""
    rewrite = Rewrite(graph)
    for node in graph:
        source = graph[node.inputs[0]] if node.op == "result" else None
        if source is not None and source.op == "packed":
            rewrite.replace(node, rewrite.ids[source.inputs[node.params["index"]]])
        else:
            rewrite.keep(node)
    return rewrite.finish("unpack_results")
