"""Views of a graph for people: a picture (as Graphviz DOT text) and a numeric summary.

``picture`` decides what a drawing of a graph shows, so that every way of
drawing it (``to_dot`` here, the matplotlib engine of ``ir.pictures.render``) shows
the same thing: node names are the names ``to_text`` prints, sources,
constants, outputs and adjoint nodes look different, and optional clusters
gather the nodes each source statement made.  Large graphs stay legible by
collapsing straight chains of one-input ops (``sin → multiply(·, 2.0) →
tanh``) into one node.  ``summary`` counts what a graph holds, so two
recordings or an adjoint graph before and after ``optimize`` can be compared
at a glance.
"""

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ir.graph import graph_method, literal_text, type_text

AUTO_COLLAPSE = 200
"""Graphs with more nodes than this collapse chains unless told otherwise."""

CHAIN_LABEL_OPS = 6
"""Longest chain whose every op is spelled out in its label; longer ones elide the middle."""

FILL_COLOURS = {"source": "#cfe2ff", "constant": "#eeeeee", "op": "#ffffff",
                "adjoint": "#fff3cd"}
"""Fill colour by role, the same in every drawing."""

OUTPUT_COLOUR = "#c0392b"
"""Border colour of an output (or, in a recording without outputs, its last op)."""

_STYLES = {
    "source": f'shape=box, style="rounded,filled", fillcolor="{FILL_COLOURS["source"]}"',
    "constant": f'shape=box, style=filled, fillcolor="{FILL_COLOURS["constant"]}", fontsize=8',
    "op": f'shape=ellipse, style=filled, fillcolor="{FILL_COLOURS["op"]}"',
    "adjoint": f'shape=ellipse, style="filled,dashed", fillcolor="{FILL_COLOURS["adjoint"]}"',
}
"""DOT node attributes by role; outputs add ``_OUTPUT_STYLE`` on top."""

_OUTPUT_STYLE = f'penwidth=2.5, color="{OUTPUT_COLOUR}"'


# --- what a picture shows -------------------------------------------------------

@dataclass(frozen=True)
class DrawnNode:
    """One box of a picture: ``name`` as ``to_text`` prints it (a collapsed chain is
    named after its last op), its ``label``, its ``role`` (``"source"``, an input or
    variable; ``"constant"``; ``"op"``, a forward op; ``"adjoint"``, an op of the
    gradient), and whether it is an ``output``."""

    name: str
    label: str
    role: str
    output: bool


@dataclass(frozen=True)
class DrawnEdge:
    """One arrow, from argument ``tail`` to user ``head`` (node names); ``label`` is the
    argument position when the user takes several arguments, else ``None``."""

    tail: str
    head: str
    label: str = None


@dataclass(frozen=True)
class Cluster:
    """The drawn nodes one user statement made (``members``, by name), and its label."""

    label: str
    members: tuple


@dataclass(frozen=True)
class Picture:
    """What a drawing of a graph shows: nodes and edges in graph order, and clusters
    in the order of their first node."""

    nodes: tuple
    edges: tuple
    clusters: tuple = ()


def picture(graph, *, cluster_by_line=False, shapes=True, collapse_chains=None):
    """The ``Picture`` of ``graph``; the options are those of ``to_dot``."""
    if collapse_chains is None:
        collapse_chains = len(graph) > AUTO_COLLAPSE
    names = graph.names()
    inline = _inline_scalars(graph)
    groups = _statement_groups(graph) if cluster_by_line else {}
    chains = _chains(graph, inline, groups) if collapse_chains else {}
    shown = [n for n in graph if n.id not in inline and _chain_end(chains, n.id) == n.id]
    outputs = _highlighted_outputs(graph)
    nodes = tuple(_drawn_node(graph, n, names, inline, chains, outputs, shapes) for n in shown)
    clusters = tuple(Cluster(_cluster_label(group), tuple(names[n.id] for n in members))
                     for group, members in _cluster_members(shown, groups).items())
    return Picture(nodes, tuple(_edges(graph, shown, names, inline, chains)), clusters)


# --- DOT ----------------------------------------------------------------------

@graph_method
def to_dot(graph, *, cluster_by_line=False, shapes=True, collapse_chains=None):
    """Graphviz DOT text for ``graph``; the same graph always gives the same text.

    Scalar constants are written into their user's label (``multiply(·, 2.0)``)
    rather than drawn, as ``to_text`` writes them inline.  Edges carry the
    argument position when their user takes more than one argument.
    ``cluster_by_line`` groups op nodes by the user statement that made them
    (adjoint nodes by the statement of the node they differentiate).
    ``collapse_chains`` defaults to on for graphs of more than ``AUTO_COLLAPSE`` nodes.
    """
    drawn = picture(graph, cluster_by_line=cluster_by_line, shapes=shapes,
                    collapse_chains=collapse_chains)
    statements = {node.name: _dot_node(node) for node in drawn.nodes}
    lines = ["digraph tapegen {",
             '  graph [fontname="Helvetica", fontsize=11];',
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=8];']
    for number, cluster in enumerate(drawn.clusters):
        lines.append(f"  subgraph {_quote(f'cluster_{number}')} {{")
        lines.append(f"    label={_quote(cluster.label)};")
        lines.append('    style="rounded,dashed"; color="#888888";')
        lines.extend(f"    {statements[name]}" for name in cluster.members)
        lines.append("  }")
    in_cluster = {name for cluster in drawn.clusters for name in cluster.members}
    lines.extend(f"  {statements[n.name]}" for n in drawn.nodes if n.name not in in_cluster)
    lines.extend(f"  {_dot_edge(edge)}" for edge in drawn.edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_node(node):
    """The DOT statement declaring a drawn node with its label and style."""
    style = _STYLES[node.role]
    if node.output:
        style = f"{style}, {_OUTPUT_STYLE}"
    return f"{_quote(node.name)} [label={_quote(node.label)}, {style}];"


def _dot_edge(edge):
    text = f"{_quote(edge.tail)} -> {_quote(edge.head)}"
    if edge.label is not None:
        text += f" [label={_quote(edge.label)}]"
    return text + ";"


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


# --- nodes and edges ------------------------------------------------------------

def _drawn_node(graph, node, names, inline, chains, outputs, shapes):
    """The ``DrawnNode`` for ``node`` (or the chain it ends): label, role, output."""
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
    return DrawnNode(names[node.id], label, role, node.id in outputs)


def _edges(graph, shown, names, inline, chains):
    """One ``DrawnEdge`` per drawn argument; chains take their first member's arguments."""
    edges = []
    for node in shown:
        members = chains.get(node.id)
        first = graph[members[0]] if members else node
        positioned = len(first.inputs) > 1 and not members
        for position, arg in enumerate(first.inputs):
            if arg in inline:
                continue
            label = str(position) if positioned else None
            edges.append(DrawnEdge(names[_chain_end(chains, arg)], names[node.id], label))
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


@graph_method
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
