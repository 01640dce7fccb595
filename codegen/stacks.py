"""The stacks a target may write other than by their spelling
(``Target.stack_in_place``): those whose values all have statements of their own,
before the stack's, in the same layout."""

from codegen.targets.base import primitive_of
from ir.primitives.shape import stack


def stacks_in_place(statements, names, target):
    """For the ``statements`` of one layout (op nodes, each a statement of its own, named
    by ``names``), the lines ``target`` writes after each value's statement and those
    it writes in a stack's place, each by node id, and the module's names they read."""
    after, instead, reads = {}, {}, set()
    made = {node.id: k for k, node in enumerate(statements)}
    for node in statements:
        if not (primitive_of(node) is stack and node.params["axis"] == 0
                and all(made.get(i, made[node.id]) < made[node.id] for i in node.inputs)):
            continue
        first = min(node.inputs, key=made.get)
        written = target.stack_in_place(names[node.id], [names[i] for i in node.inputs],
                                        names[first])
        if written is None:
            continue
        for i in dict.fromkeys(node.inputs):
            after.setdefault(i, []).extend(written.after.get(names[i], ()))
        instead[node.id] = written.instead
        reads |= written.reads
    return after, instead, reads
