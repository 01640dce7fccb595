"""Views of a graph for people: a picture (as Graphviz DOT text) and a numeric summary.

``picture`` decides what a drawing of a graph shows, so that every way of
drawing it (``to_dot`` here, the matplotlib engine of ``ir.pictures.render``) shows
the same thing: node names are the names ``to_text`` prints, sources,
constants, outputs and adjoint nodes look different, optional clusters
gather the nodes each source statement made, and each body of a loop or
branch is drawn beside its node, as the listing prints it beneath.  Large
graphs stay legible by collapsing straight chains of one-input ops
(``ir.pictures.chains``).  ``summary`` (``ir.pictures.summary``, served from
here too) counts what a graph holds.
"""

from dataclasses import dataclass, replace

import numpy as np

from ir.graph import bodies_of, body_header, literal_text, node_type_text
from ir.pictures.chains import chain_end, chain_text, chains, is_adjoint, op_text
from ir.pictures.summary import Summary, summary  # noqa: F401 (the pictures' summary)

AUTO_COLLAPSE = 200
"""Graphs with more nodes than this collapse chains unless told otherwise."""

FILL_COLOURS = {"source": "#cfe2ff", "constant": "#eeeeee", "op": "#ffffff",
                "adjoint": "#fff3cd", "return": "#e2f0d9"}
"""Fill colour by role, the same in every drawing."""

BODY_COLOUR = "#4a6fa5"
"""Border colour of a loop's or branch's body."""

OUTPUT_COLOUR = "#c0392b"
"""Border colour of an output (or, in a recording without outputs, its last op)."""

_STYLES = {
    "source": f'shape=box, style="rounded,filled", fillcolor="{FILL_COLOURS["source"]}"',
    "constant": f'shape=box, style=filled, fillcolor="{FILL_COLOURS["constant"]}", fontsize=8',
    "op": f'shape=ellipse, style=filled, fillcolor="{FILL_COLOURS["op"]}"',
    "adjoint": f'shape=ellipse, style="filled,dashed", fillcolor="{FILL_COLOURS["adjoint"]}"',
    "return": f'shape=box, style=filled, fillcolor="{FILL_COLOURS["return"]}", fontsize=9',
}
"""DOT node attributes by role; outputs add ``_OUTPUT_STYLE`` on top."""

_OUTPUT_STYLE = f'penwidth=2.5, color="{OUTPUT_COLOUR}"'


# --- what a picture shows -------------------------------------------------------

@dataclass(frozen=True)
class DrawnNode:
    """One box of a picture: ``name`` as ``to_text`` prints it (a collapsed chain is
    named after its last op), its ``label``, its ``role`` (``"source"``, an input or
    variable; ``"constant"``; ``"op"``, a forward op; ``"adjoint"``, an op of the
    gradient; ``"return"``, what a body returns), and whether it is an ``output``."""

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
    """What a drawing of a graph shows: nodes and edges in graph order, clusters in the
    order of their first node, and the bodies of its loops and branches."""

    nodes: tuple
    edges: tuple
    clusters: tuple = ()
    bodies: tuple = ()


@dataclass(frozen=True)
class DrawnBody:
    """A body of the loop or branch drawn as ``owner``, with the listing's ``header`` for
    it and its ``picture``: the body's own, ending in a ``return`` node joined to the
    owner, its names prefixed with ``prefix`` (``t1/body/``) so that they are unique
    however deep bodies nest."""

    owner: str
    header: str
    prefix: str
    picture: Picture

    @property
    def returns(self):
        return f"{self.prefix}return"

    @property
    def label(self):
        """``t4 true: inputs data, carry``: the owner as the listing names it, and the header."""
        return f"{self.owner.rsplit('/', 1)[-1]} {self.header}"


def picture(graph, *, cluster_by_line=False, shapes=True, collapse_chains=None):
    """The ``Picture`` of ``graph``; the options are those of ``to_dot``."""
    options = {"cluster_by_line": cluster_by_line, "shapes": shapes,
               "collapse_chains": collapse_chains}
    if collapse_chains is None:
        collapse_chains = len(graph) > AUTO_COLLAPSE
    names = graph.names()
    inline = _inline_scalars(graph)
    groups = _statement_groups(graph) if cluster_by_line else {}
    collapsed = chains(graph, inline, groups) if collapse_chains else {}
    shown = [n for n in graph if n.id not in inline and chain_end(collapsed, n.id) == n.id]
    outputs = _highlighted_outputs(graph)
    nodes = tuple(_drawn_node(graph, n, names, inline, collapsed, outputs, shapes)
                  for n in shown)
    clusters = tuple(Cluster(_cluster_label(group), tuple(names[n.id] for n in members))
                     for group, members in _cluster_members(shown, groups).items())
    bodies = tuple(_drawn_body(names[n.id], param, body, options)
                   for n in shown for param, body in bodies_of(n))
    return Picture(nodes, tuple(_edges(graph, shown, names, inline, collapsed)), clusters,
                   bodies)


def _drawn_body(owner, param, body, options):
    """The ``DrawnBody`` of one body: its picture, drawn with the same options, and a
    ``return`` node that its outputs point to, labelled like the listing's return line."""
    graph = body.graph
    drawn = picture(graph, **options)
    names, inline = graph.names(), _inline_scalars(graph)
    returned = ", ".join(inline.get(o, names[o]) for o in graph.outputs)
    several = len(graph.outputs) > 1
    edges = tuple(DrawnEdge(names[o], "return", str(k) if several else None)
                  for k, o in enumerate(graph.outputs) if o not in inline)
    whole = Picture(drawn.nodes + (DrawnNode("return", f"return {returned}", "return", False),),
                    drawn.edges + edges, drawn.clusters, drawn.bodies)
    prefix = f"{owner}/{param}/"
    return DrawnBody(owner, body_header(param, body), prefix, _renamed(whole, prefix))


def _renamed(drawn, prefix):
    """``drawn`` with ``prefix`` before every node name, its bodies' included."""
    def name(text):
        return prefix + text
    return Picture(
        tuple(replace(n, name=name(n.name)) for n in drawn.nodes),
        tuple(replace(e, tail=name(e.tail), head=name(e.head)) for e in drawn.edges),
        tuple(replace(c, members=tuple(map(name, c.members))) for c in drawn.clusters),
        tuple(DrawnBody(name(b.owner), b.header, name(b.prefix), _renamed(b.picture, prefix))
              for b in drawn.bodies))


def flattened(drawn):
    """``drawn`` with its bodies' nodes and edges among its own, each body a cluster of
    its own nodes (statement clusters inside bodies left out, as a node belongs to
    one cluster, labelled with its owner's path: ``t1/body/t4 true: ...``), and an
    edge from each body's ``return`` node to its owner: the picture for engines that
    draw clusters as tags rather than boxes."""
    nodes, edges, clusters = list(drawn.nodes), list(drawn.edges), list(drawn.clusters)
    for body in drawn.bodies:
        inner = flattened(replace(body.picture, clusters=()))
        own = [n.name for n in body.picture.nodes]
        nodes.extend(inner.nodes)
        edges.extend(inner.edges + (DrawnEdge(body.returns, body.owner),))
        clusters.extend((Cluster(f"{body.owner} {body.header}", tuple(own)), *inner.clusters))
    return Picture(tuple(nodes), tuple(edges), tuple(clusters))


# --- DOT ----------------------------------------------------------------------

def to_dot(graph, *, cluster_by_line=False, shapes=True, collapse_chains=None):
    """Graphviz DOT text for ``graph``; the same graph always gives the same text.

    Scalar constants are written into their user's label (``multiply(·, 2.0)``)
    rather than drawn, as ``to_text`` writes them inline.  Edges carry the
    argument position when their user takes more than one argument.
    ``cluster_by_line`` groups op nodes by the user statement that made them
    (adjoint nodes by the statement of the node they differentiate).
    ``collapse_chains`` defaults to on for graphs of more than ``AUTO_COLLAPSE`` nodes.
    Each body of a loop or branch is a cluster labelled like the listing's header for
    it, drawn with the same options, its return node joined to the loop's node by a
    dashed edge; bodies inside bodies are clusters inside clusters.
    """
    drawn = picture(graph, cluster_by_line=cluster_by_line, shapes=shapes,
                    collapse_chains=collapse_chains)
    lines = ["digraph tapegen {",
             '  graph [fontname="Helvetica", fontsize=11];',
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=8];',
             *_dot_statements(drawn, "  ", ""),
             "}"]
    return "\n".join(lines) + "\n"


def _dot_statements(drawn, pad, prefix):
    """The DOT statements of ``drawn``, indented by ``pad``: its statement clusters, its
    other nodes, its edges, then each body as a cluster (``cluster_t1/body``, holding
    the body's own statements) with a dashed edge from its return node to its owner."""
    statements = {node.name: _dot_node(node) for node in drawn.nodes}
    lines = []
    for number, cluster in enumerate(drawn.clusters):
        lines.append(f"{pad}subgraph {_quote(f'cluster_{prefix}{number}')} {{")
        lines.append(f"{pad}  label={_quote(cluster.label)};")
        lines.append(f'{pad}  style="rounded,dashed"; color="#888888";')
        lines.extend(f"{pad}  {statements[name]}" for name in cluster.members)
        lines.append(f"{pad}}}")
    in_cluster = {name for cluster in drawn.clusters for name in cluster.members}
    lines.extend(f"{pad}{statements[n.name]}" for n in drawn.nodes if n.name not in in_cluster)
    lines.extend(f"{pad}{_dot_edge(edge)}" for edge in drawn.edges)
    for body in drawn.bodies:
        lines.append(f"{pad}subgraph {_quote(f'cluster_{body.prefix}')} {{")
        lines.append(f"{pad}  label={_quote(body.label)};")
        lines.append(f'{pad}  style=rounded; color="{BODY_COLOUR}";')
        lines.extend(_dot_statements(body.picture, pad + "  ", body.prefix))
        lines.append(f"{pad}}}")
        lines.append(f"{pad}{_quote(body.returns)} -> {_quote(body.owner)} [style=dashed];")
    return lines


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
        if is_adjoint(node):
            source = node.meta.get("adjoint_source")
            forward = node.meta["adjoint_of"]
            if source is None and forward is not None and forward in graph.nodes:
                source = graph[forward].source
        if source is not None:
            groups[node.id] = (is_adjoint(node), source.statement)
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


# --- nodes and edges ------------------------------------------------------------

def _drawn_node(graph, node, names, inline, chains, outputs, shapes):
    """The ``DrawnNode`` for ``node`` (or the chain it ends): label, role, output."""
    members = chains.get(node.id)
    if node.kind != "op":
        role = "source" if node.kind in ("input", "variable") else "constant"
        head = f"{names[node.id]}\n{node.kind}"
    elif members is not None:
        role = "adjoint" if is_adjoint(node) else "op"
        span = f"{names[members[0]]} … {names[node.id]}"
        head = f"{span} = {chain_text(graph, members, inline)}"
    else:
        role = "adjoint" if is_adjoint(node) else "op"
        head = f"{names[node.id]} = {op_text(node, inline)}"
    label = f"{head}\n{node_type_text(graph, node)}" if shapes else head
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
            edges.append(DrawnEdge(names[chain_end(chains, arg)], names[node.id], label))
    return edges
