"""Graphs as JSON: a versioned document that round-trips every node field exactly.

A document is an object ``{"format": "tapegen.graph", "version": 1,
"nodes": [...], "outputs": [...]}``; each node an object with exactly the
fields of ``ir.graph.Node`` (``shape`` a list of ints, ``dtype`` a name,
``source`` an object ``{"file", "line", "function"}`` or ``null``); params,
meta and leaf values are written as ``ir.json.values`` describes.

A node with several results (a loop's, a branch's, ``packed``) has dtype
``"object"`` and shape ``[]``.  A loop or branch holds each of its bodies in its
params (``BODY_PARAMS``) as ``{"$": "body", "graph": {"nodes": [...],
"outputs": [...]}, "inputs": [...], "carries": n, "xs": n}``: a nested graph
whose nodes are written and checked as the document's are, and the ids of its
input nodes (carries, then ``xs``, then invariants).

Loading trusts nothing: it parses with ``json`` only (nothing is evaluated
or unpickled), bounds the document size, the nodes it holds (bodies' included),
the nesting of bodies, the nesting depth of values, integers, strings, ranks
and element counts, allows only numeric and bool dtypes (object only on nodes
with several results) and known primitives, checks every field's type and
every node reference (a body's inputs, a loop's kept nodes), and reports any
problem as ``GraphFormatError``.  It checks structure, not meaning: it never
runs a primitive, so a well-formed document whose params a primitive rejects
loads, and fails when evaluated.
"""

import json

import numpy as np

from ir.graph import NODE_REFERENCES, Graph
from ir.json.format import (FORMAT, KINDS, MAX_BODY_DEPTH, MAX_CONSTANT_ELEMENTS,
                            MAX_DOCUMENT_SIZE, MAX_NODES, NODE_FIELDS, RESULTS_DTYPE, VERSION,
                            GraphFormatError, as_dtype, as_int, as_list, as_optional_string,
                            as_node_shape, as_string, check_keys)
from ir.json.values import (dtype_name, parse, read_leaf_value, read_mapping, read_source,
                            write, write_mapping, write_omitted, write_source)
from ir.loops.body import Body
from ir.loops.structure import BODY_NODE_LISTS, BODY_PARAMS, SEVERAL_RESULTS
from ir.json.sizes import read_sizes, write_sizes
from ir.primitive import PRIMITIVES

_BODY_FIELDS = ("$", "graph", "inputs", "carries", "xs")
DOCUMENT_FIELDS = ("format", "version", "nodes", "outputs")
SIZE_FIELDS = ("sizes", "guards")
"""Fields a document has only for a graph with symbolic sizes (``ir.json.sizes``)."""


# --- writing ---------------------------------------------------------------------


def to_json(graph, *, max_constant_elements=MAX_CONSTANT_ELEMENTS):
    """``graph`` as a JSON document (a string).

    Leaf values with more than ``max_constant_elements`` elements are kept by
    shape and dtype only.  Raises ``GraphFormatError`` for what the format
    cannot hold: nodes of ``python_only`` primitives (``custom_gradient``), values of other types, dtypes
    outside ``DTYPES``, bodies nested deeper than ``MAX_BODY_DEPTH``.
    """
    document = write_sizes(graph, {"format": FORMAT, "version": VERSION,
                                   **_write_graph(graph, "", max_constant_elements, 0)})
    return json.dumps(document, allow_nan=False, separators=(",", ":"))


def _write_graph(graph, prefix, max_constant_elements, depth):
    """The ``nodes`` and ``outputs`` of a document's graph or of a body's."""
    nodes = []
    for position, node in enumerate(graph):
        if node.id != position:
            raise GraphFormatError(f"{prefix}node ids must count up from 0 (node {node.id} "
                                   f"at position {position})")
        nodes.append(_write_node(node, f"{prefix}node {node.id}", max_constant_elements,
                                 depth))
    return {"nodes": nodes, "outputs": list(graph.outputs)}


def _write_node(node, where, max_constant_elements, depth):
    reason = node.primitive.python_only if node.kind == "op" else None
    if reason is not None:
        raise GraphFormatError(f"{where} ({node.op}) cannot be written as JSON: {reason}")
    value = node.value
    if isinstance(value, np.ndarray) and value.size > max_constant_elements:
        value = write_omitted(value, where)
    else:
        value = write(value, where, 0)
    several = node.kind == "op" and node.op in SEVERAL_RESULTS and node.dtype == object
    return {"id": node.id, "kind": node.kind, "op": node.op, "inputs": list(node.inputs),
            "params": _write_params(node.params, f"{where} params", max_constant_elements,
                                    depth),
            "shape": [write(dim, f"{where} shape", 0) for dim in node.shape],
            "dtype": RESULTS_DTYPE if several else dtype_name(node.dtype, where),
            "name": as_optional_string(node.name, f"{where} name"),
            "source": write_source(node.source, f"{where} source"),
            "value": value, "meta": write_mapping(node.meta, f"{where} meta")}


def _write_params(params, where, max_constant_elements, depth):
    """A node's params: bodies as nested graphs, everything else as values."""
    written = write_mapping({k: v for k, v in params.items() if not isinstance(v, Body)}, where)
    return {key: _write_body(value, f"{where}[{key!r}]", max_constant_elements, depth + 1)
            if isinstance(value, Body) else written[key] for key, value in params.items()}


def _write_body(body, where, max_constant_elements, depth):
    if depth > MAX_BODY_DEPTH:
        raise GraphFormatError(f"{where}: bodies nested deeper than {MAX_BODY_DEPTH}")
    return {"$": "body", "graph": _write_graph(body.graph, f"{where} ", max_constant_elements,
                                               depth),
            "inputs": list(body.inputs), "carries": len(body.carries), "xs": len(body.xs)}


# --- reading ---------------------------------------------------------------------


def from_json(text, *, max_size=MAX_DOCUMENT_SIZE, max_nodes=MAX_NODES):
    """The graph a ``to_json`` document describes.

    ``text`` is a ``str`` (or UTF-8 ``bytes``) of at most ``max_size``
    characters, holding at most ``max_nodes`` nodes, its bodies' included.
    Raises ``GraphFormatError`` for anything that is not a valid document; never
    evaluates or imports anything the document names.
    """
    document = parse(text, max_size)
    optional = tuple(k for k in SIZE_FIELDS if isinstance(document, dict) and k in document)
    check_keys(document, DOCUMENT_FIELDS + optional, "document")
    if document["format"] != FORMAT:
        raise GraphFormatError(f"not a tapegen graph document (format {document['format']!r})")
    if type(document["version"]) is not int or document["version"] != VERSION:
        raise GraphFormatError(f"unsupported graph format version {document['version']!r} "
                               f"(this tapegen reads version {VERSION})")
    return read_sizes(_read_graph(document, "", _NodeBudget(max_nodes), 0), document)


class _NodeBudget:
    """The nodes a document may still hold, spent graph by graph as bodies are read."""

    def __init__(self, limit):
        self.limit = self.left = limit

    def spend(self, count, where):
        self.left -= count
        if self.left < 0:
            raise GraphFormatError(f"{where}nodes: the document holds more than {self.limit} "
                                   "nodes, its bodies' included (pass a larger max_nodes to "
                                   "read it)")


def _read_graph(data, prefix, budget, depth):
    """The graph of a document's or a body's ``nodes`` and ``outputs``."""
    nodes = as_list(data["nodes"], f"{prefix}nodes")
    budget.spend(len(nodes), prefix)
    graph = Graph()
    for position, node in enumerate(nodes):
        _read_node(graph, node, f"{prefix}node {position}", len(nodes), budget, depth)
    graph.outputs = [None if o is None else _node_ref(o, len(graph), f"{prefix}outputs")
                     for o in as_list(data["outputs"], f"{prefix}outputs")]
    return graph


def _read_node(graph, data, where, count, budget, depth):
    check_keys(data, NODE_FIELDS, where)
    position = len(graph)
    if as_int(data["id"], f"{where} id") != position:
        raise GraphFormatError(f"{where}: ids must count up from 0 (found {data['id']})")
    kind = data["kind"]
    if kind not in KINDS:
        raise GraphFormatError(f"{where}: unknown kind {kind!r}")
    op = as_string(data["op"], f"{where} op")
    inputs = [_node_ref(i, position, f"{where} inputs") for i in as_list(data["inputs"], where)]
    if kind == "op":
        _check_primitive(op, where)
    elif op != kind or inputs:
        raise GraphFormatError(f"{where}: a {kind} node has op {kind!r} and no inputs")
    value = read_leaf_value(data["value"], where)
    if kind == "op" and value is not None:
        raise GraphFormatError(f"{where}: an op node has no value")
    shape = as_node_shape(data["shape"], f"{where} shape")
    graph.add_node(kind, op, inputs,
                   _read_params(data["params"], op if kind == "op" else None,
                                f"{where} params", budget, depth),
                   shape, _read_dtype(data["dtype"], kind, op, shape, where),
                   name=as_optional_string(data["name"], f"{where} name"),
                   source=read_source(data["source"], f"{where} source"), value=value,
                   meta=_read_meta(data["meta"], where, count))


def _check_primitive(op, where):
    if op not in PRIMITIVES:
        raise GraphFormatError(f"{where}: unknown primitive {op!r}")
    reason = PRIMITIVES[op].python_only
    if reason is not None:
        raise GraphFormatError(f"{where}: {op} nodes cannot be read from JSON: {reason}")


def _read_dtype(data, kind, op, shape, where):
    """A node's dtype; object only for an op with several results, of shape ``[]``."""
    if data != RESULTS_DTYPE:
        return as_dtype(data, where)
    if kind != "op" or op not in SEVERAL_RESULTS or shape != ():
        raise GraphFormatError(
            f"{where}: dtype {RESULTS_DTYPE!r} belongs only to op nodes of shape [] with "
            f"several results ({', '.join(sorted(SEVERAL_RESULTS))}), not to this {kind} "
            f"node {op!r} of shape {list(shape)}")
    return RESULTS_DTYPE


def _node_ref(value, bound, where):
    """A node id below ``bound``: inputs name earlier nodes, outputs any node."""
    node_id = as_int(value, where)
    if not 0 <= node_id < bound:
        raise GraphFormatError(f"{where}: {node_id} is not an earlier node's id")
    return node_id


def _read_meta(data, where, count):
    meta = read_mapping(data, f"{where} meta")
    for key in NODE_REFERENCES:
        if meta.get(key) is not None:
            _node_ref(meta[key], count, f"{where} meta[{key!r}]")
    return meta


def _read_params(data, op, where, budget, depth):
    """An op's params (``op`` is ``None`` for a leaf): bodies where its primitive holds
    them, and only there; values everywhere else."""
    if not isinstance(data, dict):
        raise GraphFormatError(f"{where}: expected an object")
    found = [key for key, value in data.items()
             if isinstance(value, dict) and value.get("$") == "body"]
    expected = BODY_PARAMS.get(op, ())
    if sorted(found) != sorted(expected):
        holder = f"a {op} node holds" if op is not None else "a leaf holds"
        raise GraphFormatError(f"{where}: {holder} the bodies {list(expected)}, not "
                               f"{found} (bodies are params of {', '.join(sorted(BODY_PARAMS))} "
                               "nodes only)")
    values = read_mapping({k: v for k, v in data.items() if k not in expected}, where)
    params = {key: _read_body(value, f"{where}[{key!r}]", budget, depth + 1)
              if key in expected else values[key] for key, value in data.items()}
    for key, body in BODY_NODE_LISTS.get(op, {}).items():
        _check_body_nodes(params.get(key), params[body], f"{where}[{key!r}]", body)
    return params


def _read_body(data, where, budget, depth):
    """A ``Body``: its graph, read as a document's is, and its inputs, checked."""
    if depth > MAX_BODY_DEPTH:
        raise GraphFormatError(f"{where}: bodies nested deeper than {MAX_BODY_DEPTH}")
    check_keys(data, _BODY_FIELDS, where)
    check_keys(data["graph"], ("nodes", "outputs"), f"{where} graph")
    graph = _read_graph(data["graph"], f"{where} ", budget, depth)
    inputs = as_list(data["inputs"], f"{where} inputs")
    for node_id in inputs:
        if type(node_id) is not int or node_id not in graph.nodes:
            raise GraphFormatError(f"{where} inputs: {node_id!r} is not a node of the body")
        if graph[node_id].kind != "input":
            raise GraphFormatError(f"{where} inputs: node {node_id} is a {graph[node_id].kind} "
                                   "node; a body's inputs are input nodes")
    if len(set(inputs)) != len(inputs):
        raise GraphFormatError(f"{where} inputs: a node is named twice")
    carries, xs = (as_int(data[key], f"{where} {key}") for key in ("carries", "xs"))
    if not (0 <= carries and 0 <= xs and carries + xs <= len(inputs)):
        raise GraphFormatError(f"{where}: {carries} carries and {xs} xs do not fit its "
                               f"{len(inputs)} inputs")
    if None in graph.outputs or len(graph.outputs) < carries:
        raise GraphFormatError(f"{where} graph outputs: a body gives a node for each of its "
                               f"{carries} carries and each output, never null")
    # One of a structure, as a traced body is: what is made of it is made once.
    return Body.interned(graph, inputs, carries, xs)


def _check_body_nodes(ids, body, where, name):
    """``ids``, a loop's list of nodes of its body ``name`` (``keep``), names its nodes."""
    if not isinstance(ids, tuple) or not all(type(i) is int and i in body.graph.nodes
                                             for i in ids):
        raise GraphFormatError(f"{where}: expected a tuple of ids of nodes of the loop's "
                               f"{name}, got {ids!r}")
