"""Evaluate a graph node by node.

Primitives are applied through their normal dispatch, so feeding tracer
tensors in makes any recording tape record the evaluation.
"""

import numpy as np

from ir.sizes.dims import Size
from ir.sizes.guards import RELATIONS
from ir.sizes.traced import map_sizes


def evaluate(graph, inputs=None):
    """Values of ``graph.outputs``; ``inputs`` maps leaf ids to values that replace recorded ones.

    A graph with symbolic sizes (``graph.sizes``) takes each size from the first
    leaf with an axis of it, checks its guards, and runs at those sizes.
    """
    inputs = inputs or {}
    values = {}
    sizes = _bound_sizes(graph, inputs) if graph.sizes else None
    for node in graph:
        if node.kind == "op":
            args = [values[i] for i in node.inputs]
            params = node.params if sizes is None else {
                k: map_sizes(v, Size, lambda size: size.evaluate(sizes))
                for k, v in node.params.items()}
            values[node.id] = node.primitive(*args, **params)
        elif node.id in inputs:
            values[node.id] = inputs[node.id]
        elif node.value is None:
            raise ValueError(f"graph input {node.name or node.id!r} has no recorded value; "
                             "pass one in inputs")
        else:
            values[node.id] = node.value
    return [None if o is None else values[o] for o in graph.outputs]


def _bound_sizes(graph, inputs):
    """Each symbolic size of ``graph``, from the first leaf (given or recorded) with an axis
    of it; refused where two leaves disagree or a guard does not hold."""
    sizes, where = {}, {}
    for node in graph.leaves:
        value = inputs.get(node.id, node.value)
        if value is None:
            continue
        for axis, (size, actual) in enumerate(zip(node.shape, np.shape(value))):
            if isinstance(size, Size) and size.text() in size.symbols:
                name = size.text()
                if sizes.setdefault(name, actual) != actual:
                    raise ValueError(f"{node.name or node.id}: axis {axis} has size {actual} but "
                                     f"{name} = {sizes[name]} from {where[name]}")
                where.setdefault(name, node.name or node.id)
    for guard in graph.guards:
        left, right = (s.evaluate(sizes) if isinstance(s, Size) else s
                       for s in (guard.left, guard.right))
        if RELATIONS[guard.relation](left, right) != guard.holds:
            raise ValueError(f"{', '.join(f'{n} = {v}' for n, v in sorted(sizes.items()))}: "
                             f"the graph holds only where {guard.text()}, as when it was "
                             f"traced ({guard.where})")
    return sizes
