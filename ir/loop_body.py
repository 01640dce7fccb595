"""The body of a loop: a graph traced once, from one step's values to the next's.

A body's inputs are, in order, the carries, one slice of each scanned input
(``xs``) and the loop-invariant values it closes over; its outputs are the
new carries, then the step's outputs (``ys``).  A loop node holds its body in
its params, as a jaxpr equation holds a closed sub-jaxpr.
"""

import numpy as np

from ir.primitive import PRIMITIVES


class Body:
    """A loop body: ``graph`` with its ``inputs`` (node ids, carries first, then ``xs``
    slices, then invariants) and ``graph.outputs`` (new carries, then ``ys``)."""

    __slots__ = ("graph", "inputs", "carries", "xs", "_program", "_derived")

    def __init__(self, graph, inputs, carries, xs):
        for i in inputs:
            if graph[i].kind != "input":
                raise ValueError(f"a loop body's inputs are input nodes, not {graph[i].kind}")
        if len(graph.outputs) < carries or None in graph.outputs:
            raise ValueError("a loop body gives every carry and output a node")
        self.graph = graph
        self.inputs = tuple(inputs)
        self.carries = carries
        self.xs = xs
        self._program = None
        self._derived = {}

    @property
    def invariants(self):
        return len(self.inputs) - self.carries - self.xs

    def types(self, ids):
        """``(shape, dtype)`` of the nodes ``ids``."""
        return [(self.graph[i].shape, self.graph[i].dtype) for i in ids]

    @property
    def carry_types(self):
        return self.types(self.inputs[:self.carries])

    @property
    def y_types(self):
        return self.types(self.graph.outputs[self.carries:])

    def run(self, inputs, kept=()):
        """The outputs of one step on ``inputs`` (one value per input), then the values of
        the nodes ``kept``."""
        values = dict(zip(self.inputs, inputs))
        for node_id, impl, args, params in self._compiled():
            values[node_id] = impl(*[values[i] for i in args], **params)
        return [values[i] for i in self.graph.outputs], [values[i] for i in kept]

    def _compiled(self):
        """The ops of the graph in order, with constants bound: one step is then a loop
        over a list, not a graph walk."""
        if self._program is None:
            constants = {n.id: n.value for n in self.graph if n.kind == "constant"}
            program = [(i, _const(v), (), {}) for i, v in constants.items()]
            program += [(n.id, PRIMITIVES[n.op], n.inputs, n.params)
                        for n in self.graph if n.kind == "op"]
            self._program = program
        return self._program

    def with_outputs(self, extra):
        """This body with the nodes ``extra`` as further outputs: a scan's kept values are
        outputs like its ``ys`` to whatever differentiates it."""
        def make(body):
            graph = body.graph.copy()
            graph.outputs = [*graph.outputs, *extra]
            return Body(graph, body.inputs, body.carries, body.xs)
        return self.derived(("with outputs", tuple(extra)), make) if extra else self

    def derived(self, key, make):
        """What ``make(self)`` gives, made once per body (its adjoint, for example)."""
        value = self._derived.get(key)
        if value is None:
            value = self._derived[key] = make(self)
        return value

    def __repr__(self):
        return (f"<loop body: {self.carries} carries, {self.xs} xs, {self.invariants} "
                f"invariants, {len(self.graph)} nodes>")


def _const(value):
    return lambda: value


def stacked(length, shape, dtype):
    """Room for ``length`` steps' values of one shape, written one step at a time."""
    return np.empty((length, *shape), dtype)
