"""What a loop gives, trimmed to what is read: ``drop_unread_results`` removes the
stacked outputs and kept values no node reads, so the body no longer computes them and
the loop no longer stacks them.  Generated code runs it last; the graphs a gradient is
taken of keep every result (what differentiates a loop reads them).
"""

from ir.graph import Graph
from ir.loop_body import Body


def drop_unread_results(graph):
    """``graph`` with each scan's stacked outputs and kept values that no node reads left
    out of it; the ``result`` nodes that read the others are renumbered to match."""
    read = {}
    for node in graph:
        if node.op == "result":
            read.setdefault(node.inputs[0], set()).add(node.params["index"])
    out = _copy(graph)
    for node in graph:
        if node.op == "scan":
            _drop_scan_results(out, node, read.get(node.id, set()))
    return out


def _drop_scan_results(graph, node, read):
    body, keep = node.params["body"], node.params["keep"]
    count = body.carries
    ys = body.graph.outputs[count:]
    kept_ys = [k for k in range(len(ys)) if count + k in read]
    kept_keep = [k for k in range(len(keep)) if count + len(ys) + k in read]
    if len(kept_ys) == len(ys) and len(kept_keep) == len(keep):
        return
    new_index = {k: k for k in range(count)}
    new_index.update({count + k: count + j for j, k in enumerate(kept_ys)})
    new_index.update({count + len(ys) + k: count + len(kept_ys) + j
                      for j, k in enumerate(kept_keep)})
    trimmed = body.graph.copy()
    trimmed.outputs = [*body.graph.outputs[:count], *(ys[k] for k in kept_ys)]
    params = dict(node.params, body=Body(trimmed, body.inputs, count, body.xs),
                  keep=tuple(keep[k] for k in kept_keep))
    _replace(graph, node, params=params)
    for user in list(graph):
        if user.op == "result" and user.inputs[0] == node.id:
            index = user.params["index"]
            if index in new_index:
                _replace(graph, user, params=dict(user.params, index=new_index[index]))


def _copy(graph):
    out = Graph()
    out.nodes = dict(graph.nodes)
    out.outputs = list(graph.outputs)
    for key, value in vars(graph).items():
        if key not in ("nodes", "outputs", "_nx"):
            setattr(out, key, value)
    return out


def _replace(graph, node, **fields):
    graph.nodes[node.id] = type(node)(**{**node.__dict__, **fields})
    graph._nx = None
