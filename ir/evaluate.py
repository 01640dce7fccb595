"""Evaluate a graph node by node.

Primitives are applied through their normal dispatch, so feeding tracer
tensors in makes any recording tape record the evaluation.
"""

from ir.primitive import PRIMITIVES


def evaluate(graph, inputs=None):
    """Values of ``graph.outputs``; ``inputs`` maps leaf ids to values that replace recorded ones."""
    inputs = inputs or {}
    values = {}
    for node in graph:
        if node.kind == "op":
            args = [values[i] for i in node.inputs]
            values[node.id] = PRIMITIVES[node.op](*args, **node.params)
        elif node.id in inputs:
            values[node.id] = inputs[node.id]
        elif node.value is None:
            raise ValueError(f"graph input {node.name or node.id!r} has no recorded value; "
                             "pass one in inputs")
        else:
            values[node.id] = node.value
    return [None if o is None else values[o] for o in graph.outputs]
