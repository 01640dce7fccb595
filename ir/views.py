"""Views of a graph for people: Graphviz DOT text and a numeric summary.

``to_dot`` draws a graph a reader can follow back to their code: node ids are
the names ``to_text`` prints, sources, constants, outputs and adjoint nodes
look different, and optional clusters gather the nodes each source statement
made.  Large graphs stay legible by collapsing straight chains of one-input
ops (``sin → multiply(·, 2.0) → tanh``) into one node.  ``summary`` counts
what a graph holds, so two recordings or an adjoint graph before and after
``optimize`` can be compared at a glance.
"""

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ir.graph import literal_text, type_text

AUTO_COLLAPSE = 200
"""Graphs with more nodes than this collapse chains unless told otherwise."""

CHAIN_LABEL_OPS = 6
"""Longest chain whose every op is spelled out in its label; longer ones elide the middle."""

_STYLES = {
    "source": 'shape=box, style="rounded,filled", fillcolor="#cfe2ff"',
    "constant": 'shape=box, style=filled, fillcolor="#eeeeee", fontsize=8',
    "op": 'shape=ellipse, style=filled, fillcolor="#ffffff"',
    "adjoint": 'shape=ellipse, style="filled,dashed", fillcolor="#fff3cd"',
}
"""Node attributes by role; outputs add ``_OUTPUT_STYLE`` on top."""

_OUTPUT_STYLE = 'penwidth=2.5, color="#c0392b"'


# --- DOT ----------------------------------------------------------------------

def to_dot(graph, *, cluster_by_line=False, shapes=True, collapse_chains=None):
    """Graphviz DOT text for ``graph``; the same graph always gives the same text.

    Scalar constants are written into their user's label (``multiply(·, 2.0)``)
    rather than drawn, as ``to_text`` writes them inline.  Edges carry the
    argument position when their user takes more than one argument.
    ``cluster_by_line`` groups op nodes by the user statement that made them
    (adjoint nodes by the statement of the node they differentiate).
    ``collapse_chains`` defaults to on for graphs of more than ``AUTO_COLLAPSE`` nodes.
    """
    if collapse_chains is None:
        collapse_chains = len(graph) > AUTO_COLLAPSE
    names = graph.names()
    inline = _inline_scalars(graph)
    groups = _statement_groups(graph) if cluster_by_line else {}
    chains = _chains(graph, inline, groups) if collapse_chains else {}
    shown = [n for n in graph if n.id not in inline and _chain_end(chains, n.id) == n.id]
    outputs = _highlighted_outputs(graph)
    lines = ["digraph tapegen {",
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=8];']
    statements = {n.id: _node_statement(graph, n, names, inline, chains, outputs, shapes)
                  for n in shown}
    clustered = _cluster_members(shown, groups)
    for number, (group, members) in enumerate(clustered.items()):
        lines.append(f"  subgraph {_quote(f'cluster_{number}')} {{")
        lines.append(f"    label={_quote(_cluster_label(group))};")
        lines.append('    style="rounded,dashed"; color="#888888";')
        lines.extend(f"    {statements[node.id]}" for node in members)
        lines.append("  }")
    in_cluster = {node.id for members in clustered.values() for node in members}
    lines.extend(f"  {statements[n.id]}" for n in shown if n.id not in in_cluster)
    lines.extend(f"  {edge}" for edge in _edges(graph, shown, names, inline, chains))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _quote(text):
    """``text`` as a DOT quoted string: backslashes and quotes escaped, newlines as ``\\n``."""
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r", "").replace("\n", "\\n") + '"'


def _inline_scalars(graph):
    """Literal text of each scalar constant, which labels show instead of a node."""
    return {n.id: literal_text(n.value) for n in graph
            if n.kind == "constant" and n.value is not None and np.ndim(n.value) == 0}


def _is_adjoint(node):
    return "adjoint_of" in node.meta


def _highlighted_outputs(graph):
    """The graph's outputs; for a recording with none yet, its last op (what was computed)."""
    if graph.outputs:
        return {o for o in graph.outputs if o is not None}
    ops = [n.id for n in graph if n.kind == "op"]
    return set(ops[-1:])


def _statement_groups(graph):
    """For each op node, the statement it comes from: ``(adjoint?, SourceLocation)``.

    Adjoint nodes have no source of their own; they go with the statement of the
    forward node they differentiate, in a cluster apart from the forward one.
    """
    groups = {}
    for node in graph:
        if node.kind != "op":
            continue
        source = node.source
        if _is_adjoint(node):
            source = node.meta.get("adjoint_source")
            forward = node.meta["adjoint_of"]
            if source is None and forward is not None and forward in graph.nodes:
                source = graph[forward].source
        if source is not None:
            groups[node.id] = (_is_adjoint(node), source.statement)
    return groups


def _cluster_label(group):
    adjoint, location = group
    text = location.text
    label = f"{location}  {text}" if text else str(location)
    return f"adjoint of {label}" if adjoint else label


def _cluster_members(shown, groups):
    """Shown nodes by statement group, groups in order of their first node."""
    clusters = {}
    for node in shown:
        group = groups.get(node.id)
        if group is not None:
            clusters.setdefault(group, []).append(node)
    return clusters


# --- chains -------------------------------------------------------------------

def _chains(graph, inline, groups):
    """Straight chains of two or more ops, as ``{member id: tuple of member ids}``.

    A link joins an op used exactly once, and not an output, to its one user when
    that user has no other drawn argument; both must be forward or both adjoint,
    and from the same statement when clustering, so a chain fits in one style and
    one cluster.
    """
    uses = Counter(i for n in graph for i in n.inputs)
    outputs = {o for o in graph.outputs if o is not None}
    previous = {}
    for node in graph:
        drawn = _drawn_inputs(node, inline)
        if node.kind != "op" or len(drawn) != 1:
            continue
        parent = graph[drawn[0]]
        if (parent.kind == "op" and len(_drawn_inputs(parent, inline)) == 1
                and uses[parent.id] == 1 and parent.id not in outputs
                and _is_adjoint(parent) == _is_adjoint(node)
                and groups.get(parent.id) == groups.get(node.id)):
            previous[node.id] = parent.id
    following = {parent: child for child, parent in previous.items()}
    chains = {}
    for head in sorted(set(following) - set(previous)):
        members = [head]
        while members[-1] in following:
            members.append(following[members[-1]])
        chains.update(dict.fromkeys(members, tuple(members)))
    return chains


def _drawn_inputs(node, inline):
    return [i for i in node.inputs if i not in inline]


def _chain_end(chains, node_id):
    """The id standing for ``node_id`` in the drawing: its chain's last op, else itself."""
    members = chains.get(node_id)
    return node_id if members is None else members[-1]


def _op_text(node, inline):
    """``op`` with its scalar arguments written in, ``·`` marking each drawn one."""
    if not any(i in inline for i in node.inputs):
        return node.op
    args = ", ".join(inline.get(i, "·") for i in node.inputs)
    return f"{node.op}({args})"


def _chain_text(graph, members, inline):
    ops = [_op_text(graph[i], inline) for i in members]
    if len(ops) > CHAIN_LABEL_OPS:
        keep = CHAIN_LABEL_OPS // 2
        ops = ops[:keep] + [f"… {len(ops) - 2 * keep + 1} more"] + ops[-keep + 1:]
    return " → ".join(ops)


# --- statements ---------------------------------------------------------------

def _node_statement(graph, node, names, inline, chains, outputs, shapes):
    """The DOT statement declaring ``node`` (or the chain it ends) with label and style."""
    members = chains.get(node.id)
    if node.kind != "op":
        role = "source" if node.kind in ("input", "variable") else "constant"
        head = f"{names[node.id]}\n{node.kind}"
    elif members is not None:
        role = "adjoint" if _is_adjoint(node) else "op"
        span = f"{names[members[0]]} … {names[node.id]}"
        head = f"{span} = {_chain_text(graph, members, inline)}"
    else:
        role = "adjoint" if _is_adjoint(node) else "op"
        head = f"{names[node.id]} = {_op_text(node, inline)}"
    label = f"{head}\n{type_text(node)}" if shapes else head
    style = _STYLES[role]
    if node.id in outputs:
        style = f"{style}, {_OUTPUT_STYLE}"
    return f"{_quote(names[node.id])} [label={_quote(label)}, {style}];"


def _edges(graph, shown, names, inline, chains):
    """One edge per drawn argument; chains take their first member's arguments."""
    edges = []
    for node in shown:
        members = chains.get(node.id)
        first = graph[members[0]] if members else node
        positioned = len(first.inputs) > 1 and not members
        for position, arg in enumerate(first.inputs):
            if arg in inline:
                continue
            edge = f"{_quote(names[_chain_end(chains, arg)])} -> {_quote(names[node.id])}"
            if positioned:
                edge += f" [label={_quote(position)}]"
            edges.append(edge + ";")
    return edges


# --- summary ------------------------------------------------------------------

@dataclass(frozen=True)
class Summary:
    """What a graph holds: counts by kind and op, bytes of leaf values, depth, adjoint
    nodes, and (for an ``optimize`` result) what the passes removed.

    ``value_bytes`` sums ``nbytes`` of array (and numpy scalar) leaf values; Python
    scalars count 0, as they become literals rather than held arrays.
    ``optimization`` is the graph's ``stats`` (``ops_before``, ``ops_after``,
    ``rounds``, a count per pass), or ``None`` for a graph not made by ``optimize``.
    """

    nodes: int
    by_kind: dict
    by_op: dict
    value_bytes: int
    depth: int
    adjoint_nodes: int
    outputs: int
    optimization: dict = None

    @property
    def ops(self):
        return self.by_kind.get("op", 0)

    def __str__(self):
        kinds = ", ".join(f"{count} {kind}" for kind, count in self.by_kind.items())
        ops = ", ".join(f"{op} {count}" for op, count in self.by_op.items())
        lines = [f"{self.nodes} nodes: {kinds}" if kinds else "0 nodes",
                 f"ops: {ops}" if ops else "ops: none",
                 f"leaf values: {self.value_bytes} bytes (Python scalars count 0)",
                 f"depth: {self.depth} ops",
                 f"adjoint nodes: {self.adjoint_nodes}",
                 f"outputs: {self.outputs}"]
        if self.optimization is not None:
            lines.append(_optimization_text(self.optimization))
        return "\n".join(lines)


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
    return Summary(
        nodes=len(graph),
        by_kind=dict(sorted(Counter(n.kind for n in graph).items())),
        by_op=dict(sorted(Counter(n.op for n in graph if n.kind == "op").items())),
        value_bytes=sum(_value_bytes(n.value) for n in graph if n.kind != "op"),
        depth=_depth(graph),
        adjoint_nodes=sum(1 for n in graph if _is_adjoint(n)),
        outputs=sum(1 for o in graph.outputs if o is not None),
        optimization=None if stats is None else dict(stats),
    )


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
