"""Collapsed chains: straight runs of one-input ops (``sin → multiply(·, 2.0) → tanh``)
drawn as one node, which keeps large pictures legible (``ir.pictures.views``)."""

from collections import Counter

from ir.graph import bodies_of

CHAIN_LABEL_OPS = 6
"""Longest chain whose every op is spelled out in its label; longer ones elide the middle."""


def is_adjoint(node):
    return "adjoint_of" in node.meta


def chains(graph, inline, groups):
    """Straight chains of two or more ops, as ``{member id: tuple of member ids}``.

    A link joins an op used exactly once, and not an output, to its one user when
    that user has no other drawn argument; both must be forward or both adjoint,
    and from the same statement when clustering, so a chain fits in one style and
    one cluster.  A loop or branch stays a node of its own, its bodies drawn beside it.
    """
    uses = Counter(i for n in graph for i in n.inputs)
    outputs = {o for o in graph.outputs if o is not None}
    previous = {}
    for node in graph:
        drawn = _drawn_inputs(node, inline)
        if node.kind != "op" or len(drawn) != 1 or bodies_of(node):
            continue
        parent = graph[drawn[0]]
        if (parent.kind == "op" and len(_drawn_inputs(parent, inline)) == 1
                and uses[parent.id] == 1 and parent.id not in outputs
                and not bodies_of(parent) and is_adjoint(parent) == is_adjoint(node)
                and groups.get(parent.id) == groups.get(node.id)):
            previous[node.id] = parent.id
    following = {parent: child for child, parent in previous.items()}
    found = {}
    for head in sorted(set(following) - set(previous)):
        members = [head]
        while members[-1] in following:
            members.append(following[members[-1]])
        found.update(dict.fromkeys(members, tuple(members)))
    return found


def _drawn_inputs(node, inline):
    return [i for i in node.inputs if i not in inline]


def chain_end(found, node_id):
    """The id standing for ``node_id`` in the drawing: its chain's last op, else itself."""
    members = found.get(node_id)
    return node_id if members is None else members[-1]


def op_text(node, inline):
    """``op`` with its scalar arguments written in, ``·`` marking each drawn one."""
    if not any(i in inline for i in node.inputs):
        return node.op
    args = ", ".join(inline.get(i, "·") for i in node.inputs)
    return f"{node.op}({args})"


def chain_text(graph, members, inline):
    ops = [op_text(graph[i], inline) for i in members]
    if len(ops) > CHAIN_LABEL_OPS:
        keep = CHAIN_LABEL_OPS // 2
        ops = ops[:keep] + [f"… {len(ops) - 2 * keep + 1} more"] + ops[-keep + 1:]
    return " → ".join(ops)
