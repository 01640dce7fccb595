"""A numeric summary of a graph: what it holds, so that two recordings, or an adjoint
graph before and after ``optimize``, can be compared at a glance.

The counts are of the graph's own nodes; the ops inside the bodies of its loops
and branches are counted apart (``body_ops``), so a graph without loops
summarises as it always has.
"""

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ir.graph import bodies_of
from ir.pictures.chains import is_adjoint


@dataclass(frozen=True)
class Summary:
    """What a graph holds: counts by kind and op, bytes of leaf values, depth, adjoint
    nodes, and (for an ``optimize`` result) what the passes removed.

    ``value_bytes`` sums ``nbytes`` of array (and numpy scalar) leaf values, the
    constants of bodies included; Python scalars count 0, as they become literals
    rather than held arrays.  ``optimization`` is the graph's ``stats``
    (``ops_before``, ``ops_after``, ``rounds``, a count per pass), or ``None`` for a
    graph not made by ``optimize``.  ``loops`` counts the graph's loop and branch
    nodes by op; ``body_loops`` those inside their bodies, at any depth, and
    ``body_ops`` every op inside them, loops and branches included.
    """

    nodes: int
    by_kind: dict
    by_op: dict
    value_bytes: int
    depth: int
    adjoint_nodes: int
    outputs: int
    optimization: dict = None
    loops: dict = field(default_factory=dict)
    body_loops: dict = field(default_factory=dict)
    body_ops: dict = field(default_factory=dict)

    @property
    def ops(self):
        return self.by_kind.get("op", 0)

    def __str__(self):
        kinds = ", ".join(f"{count} {kind}" for kind, count in self.by_kind.items())
        lines = [f"{self.nodes} nodes: {kinds}" if kinds else "0 nodes",
                 f"ops: {_counts(self.by_op)}" if self.by_op else "ops: none",
                 f"leaf values: {self.value_bytes} bytes (Python scalars count 0)",
                 f"depth: {self.depth} ops",
                 f"adjoint nodes: {self.adjoint_nodes}",
                 f"outputs: {self.outputs}"]
        if self.loops:
            inside = f"; inside bodies: {_counts(self.body_loops)}" if self.body_loops else ""
            lines.append(f"loops and branches: {_counts(self.loops)}{inside}")
            lines.append(f"ops inside bodies, not counted above: {sum(self.body_ops.values())}"
                         f" ({_counts(self.body_ops)})" if self.body_ops else
                         "ops inside bodies: none")
        if self.optimization is not None:
            lines.append(_optimization_text(self.optimization))
        return "\n".join(lines)


def _counts(by_op):
    return ", ".join(f"{op} {count}" for op, count in by_op.items())


_STATS_TOTALS = ("ops_before", "ops_after", "nodes_before", "nodes_after", "rounds")


def _optimization_text(stats):
    passes = ", ".join(f"{name} {count}" for name, count in sorted(stats.items())
                       if name not in _STATS_TOTALS)
    rounds = f"{stats['rounds']} rounds; " if "rounds" in stats else ""
    return (f"optimisation: {stats.get('ops_before')} -> {stats.get('ops_after')} ops "
            f"({rounds}{passes})")


def summary(graph):
    """The ``Summary`` of ``graph``."""
    stats = getattr(graph, "stats", None)
    inside = list(_body_nodes(graph))
    return Summary(
        nodes=len(graph),
        by_kind=dict(sorted(Counter(n.kind for n in graph).items())),
        by_op=_by_op(graph),
        value_bytes=sum(_value_bytes(n.value) for n in [*graph, *inside] if n.kind != "op"),
        depth=_depth(graph),
        adjoint_nodes=sum(1 for n in graph if is_adjoint(n)),
        outputs=sum(1 for o in graph.outputs if o is not None),
        optimization=None if stats is None else dict(stats),
        loops=_by_op(n for n in graph if bodies_of(n)),
        body_loops=_by_op(n for n in inside if bodies_of(n)),
        body_ops=_by_op(inside),
    )


def _by_op(nodes):
    return dict(sorted(Counter(n.op for n in nodes if n.kind == "op").items()))


def _body_nodes(graph):
    """The nodes of the bodies of ``graph``'s loops and branches, and of theirs."""
    for node in graph:
        for _, body in bodies_of(node):
            yield from body.graph
            yield from _body_nodes(body.graph)


def _value_bytes(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return int(value.nbytes)
    return 0


def _depth(graph):
    """Ops on the longest path from a leaf; ids increase along edges, so one pass will do."""
    depth = {}
    for node in graph:
        below = max((depth[i] for i in node.inputs), default=0)
        depth[node.id] = below + (node.kind == "op")
    return max(depth.values(), default=0)
