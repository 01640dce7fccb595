"""The machinery every optimisation pass shares: a new graph built node by node.

A pass never mutates its input graph or its nodes.  It returns a new graph,
numbered 0..n-1 in evaluation order, whose ``stats`` give the op counts before
and after and how many nodes the pass removed or rewrote (see ``ir.optimize.passes``).
"""

import dataclasses

import numpy as np

from ir.graph import NODE_REFERENCES, Graph, Node

FOLD_LIMIT = 64
"""Largest result, in elements, that a pass writes out as a literal."""

WHOLE_VALUE_MARKS = frozenset({"cotangent_of", "tangent_of", "value_name", "parameter"})
"""``meta`` keys that name a whole value: when a pass computes a value with several new
nodes, only the last one has them."""


def op_count(graph):
    """How many op nodes ``graph`` has."""
    return sum(1 for node in graph if node.kind == "op")


class Rewrite:
    """A new graph built from ``old`` node by node, in evaluation order.

    ``ids`` maps each old node id to the new node that now computes its
    value; ``changes`` counts the old nodes a pass removed or rewrote.
    """

    def __init__(self, old):
        self.old = old
        self.new = Graph()
        self.ids = {}
        self.changes = 0

    def inputs(self, node):
        ids = self.ids
        return tuple([ids[i] for i in node.inputs])

    def keep(self, node, **changed):
        """Copy ``node`` into the new graph, with its inputs renumbered and ``changed``
        fields (``kind``, ``op``, ``inputs``, ``params``, ``value``) replaced."""
        if not changed:
            # Most nodes of most passes: a node is never mutated, so the copy shares
            # its fields (``params`` too), all but its number, inputs and ``meta``.
            nodes = self.new.nodes
            new = Node(len(nodes), node.kind, node.op, self.inputs(node), node.params,
                       node.shape, node.dtype, node.name, node.source, node.value,
                       self.meta_of(node), node.primitive)
            nodes[new.id] = new
            self.ids[node.id] = new.id
            return new
        op = node.op if node.primitive is None else node.primitive
        fields = dict(kind=node.kind, op=op, inputs=self.inputs(node), params=node.params,
                      value=node.value, name=node.name)
        fields.update(changed)
        new = self.new.add_node(fields["kind"], fields["op"], fields["inputs"], fields["params"],
                                node.shape, node.dtype, name=fields["name"], source=node.source,
                                value=fields["value"], meta=self.meta_of(node))
        self.ids[node.id] = new.id
        return new

    def meta_of(self, node):
        """The ``meta`` ``node`` keeps in the new graph: node references renumbered, and
        the lines of the nodes it differentiates kept (they may not survive)."""
        meta = dict(node.meta)
        if not meta:
            return meta
        forward = meta.get("adjoint_of")
        if forward is not None and self.old[forward].source is not None:
            meta.setdefault("adjoint_source", self.old[forward].source)
        tangent_of = meta.get("jvp_of")
        if tangent_of is not None and _line(self.old, tangent_of) is not None:
            meta.setdefault("jvp_source", _line(self.old, tangent_of))
        ids = self.ids
        for key in NODE_REFERENCES:
            if meta.get(key) is not None:
                meta[key] = ids.get(meta[key])
        return meta

    def replace(self, node, new_id):
        """Let the new node ``new_id`` stand for ``node``.  What names the value passes to
        the survivor where it has none: a user's ``name``, and on adjoint nodes the
        ``cotangent_of`` mark that names a gradient after its forward value."""
        self.ids[node.id] = new_id
        self.changes += 1
        survivor = self.new[new_id]
        name = survivor.name if survivor.name is not None else node.name
        meta = survivor.meta
        forward = node.meta.get("cotangent_of")
        if forward is not None and "adjoint_of" in meta and meta.get("cotangent_of") is None:
            meta = dict(meta, cotangent_of=self.ids.get(forward))
        if name != survivor.name or meta is not survivor.meta:
            self.new.nodes[new_id] = dataclasses.replace(survivor, name=name, meta=meta)

    def constant(self, value):
        node = self.new.add_node("constant", "constant", (), {}, np.shape(value),
                                 np.result_type(value), value=value)
        return node.id

    def finish(self, pass_name):
        new = self.new
        new.outputs = [None if o is None else self.ids[o] for o in self.old.outputs]
        new.stats = {"ops_before": op_count(self.old), "ops_after": op_count(new),
                     pass_name: self.changes}
        return new


def unchanged(graph, pass_name):
    """What a pass that found nothing to rewrite gives: ``graph`` (a copy sharing its
    nodes, not a rebuilt one) with the stats a ``Rewrite`` would have given it."""
    out = graph.copy()
    count = op_count(graph)
    out.stats = {"ops_before": count, "ops_after": count, pass_name: 0}
    return out


def _line(graph, node_id):
    """The user's line a node computes, or the one it differentiates."""
    node = graph[node_id]
    forward = node.meta.get("adjoint_of")
    return (node.source or node.meta.get("adjoint_source")
            or (graph[forward].source if forward is not None else None))
