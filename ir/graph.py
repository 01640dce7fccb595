"""The IR graph: what a node is, and the graph that holds them.

Node vocabulary (every node has every field; ``graph.nx`` carries the same
fields as node attributes):

``id``
    int, unique in its graph; ids increase in a valid evaluation order.
``kind``
    ``"input"`` a watched tensor or other value the caller supplies;
    ``"variable"`` one version of a ``Variable`` (a new version after each
    ``assign``); ``"constant"`` a value captured from outside the trace
    (a Python scalar, a numpy array, an untracked tensor);
    ``"op"`` the application of a primitive.
``op``
    the primitive's name for ``"op"`` nodes, else the kind.
``primitive``
    the ``ir.primitive.Primitive`` object of an ``"op"`` node (``None`` on leaves):
    what passes match on (``node.primitive is add``) and ask for its facts.
``inputs``
    ids of the arguments in argument order (``x * x`` lists ``x`` twice).
``params``
    static parameters of the primitive (axis, keepdims, shapes, index keys).
    A loop's or branch's hold its bodies (``ir.loops.body.Body``: ``body``,
    ``test``, ``true``, ``false``), each with a graph of its own.
``shape``, ``dtype``
    output shape (tuple of ints) and numpy dtype; a node with several results
    (a loop's, a branch's) has shape ``()`` and dtype object, and ``result``
    nodes read each result.
``name``
    readable name hint: a tensor's or variable's ``name``, else ``None``.
``source``
    ``SourceLocation`` of the user's line that made the node, or ``None``.
``value``
    the array of a leaf (input, variable, constant); ``None`` for ops.
``meta``
    open-ended analysis results.  Those tapegen writes: ``adjoint_of``, the
    forward node an adjoint node differentiates (``None`` once optimisation
    removed it), and ``adjoint_source``, that node's ``source``;
    ``cotangent_of``, the forward node whose whole cotangent this node is;
    ``seed_of``, the target an input node seeds; ``jvp_of``, the node whose
    Jacobian-vector product a tangent node helps compute (``jvp_source``, its
    line), and ``tangent_of``, the node whose whole tangent this node is (on
    a tangent input: its source); ``default_name``, set on a
    leaf whose ``name`` was made up because the user gave none; ``variable``,
    on each version of a variable, the name of its first version.  The keys in
    ``NODE_REFERENCES`` hold node ids, renumbered with their graph.

Edges of ``graph.nx`` run from argument to user with attribute ``arg`` (the
argument position); a ``networkx.MultiDiGraph`` keeps ``x * x``'s two edges.
No edge enters a body: a loop node's ``params`` attribute holds its bodies, and
``graph.nx.nodes[i]["params"]["body"].graph.nx`` is the body's own view, its
inputs the body's ``inputs``.
"""

import ast
import functools
import linecache
import textwrap
import os
from dataclasses import dataclass, field

import numpy as np

from ir.names import LEAF_FALLBACKS, Namer, identifier
from ir.primitive import Primitive, is_default, primitive_named
from ir.primitives.results import result

NODE_REFERENCES = ("adjoint_of", "cotangent_of", "seed_of", "jvp_of", "tangent_of")
"""``meta`` keys whose values are node ids."""


@dataclass(frozen=True)
class SourceLocation:
    """Where in the user's code a node was made: file, line and function; ``text`` is
    the statement at that line, and ``statement`` the location of its first line."""

    file: str
    line: int
    function: str

    @property
    def statement(self):
        """This location moved to the first line of its statement, so every part of a
        statement wrapped over several lines has one location."""
        return SourceLocation(self.file, _statement_span(self.file, self.line)[0],
                              self.function)

    @property
    def text(self):
        """The statement at this line, on one line ('' when the file cannot be read)."""
        first, last = _statement_span(self.file, self.line)
        if first == last:
            return linecache.getline(self.file, first).strip()
        lines = "".join(linecache.getline(self.file, n) for n in range(first, last + 1))
        try:
            return ast.unparse(ast.parse(textwrap.dedent(lines)))
        except SyntaxError:
            return " ".join(lines.split())

    def __str__(self):
        return f"{os.path.basename(self.file)}:{self.line}"


@functools.lru_cache(maxsize=4096)
def _statement_span(file, line):
    spans = [(first, last) for first, last in _statement_spans(file) if first <= line <= last]
    return min(spans, key=lambda span: span[1] - span[0], default=(line, line))


@functools.lru_cache(maxsize=64)
def _statement_spans(file):
    """``(first, last)`` lines of each simple statement and each compound statement's
    header in ``file`` (none when it cannot be read or parsed)."""
    try:
        tree = ast.parse("".join(linecache.getlines(file)))
    except (SyntaxError, ValueError):
        return ()
    spans = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            spans.append((node.lineno, max(node.lineno, body[0].lineno - 1)))
        else:
            spans.append((node.lineno, node.end_lineno))
    return tuple(spans)


@dataclass
class Node:
    """One node of a ``Graph``; see the module docstring for the fields."""

    id: int
    kind: str
    op: str
    inputs: tuple
    params: dict
    shape: tuple
    dtype: np.dtype
    name: str = None
    source: SourceLocation = None
    value: object = None
    meta: dict = field(default_factory=dict)
    primitive: Primitive = field(default=None, repr=False, compare=False)


class Graph:
    """A recorded or derived computation: nodes in evaluation order, and outputs.

    ``outputs`` lists node ids (or ``None`` for "no value", such as the
    gradient of a disconnected source).  ``nx`` gives the same graph as a
    ``networkx.MultiDiGraph``.

    Its pictures, summary and JSON form (``to_dot``, ``render``, ``summary``,
    ``to_json``, ``from_json``) are defined in the modules that draw and save graphs,
    which build on this one: ``ir.graph_methods`` attaches them.
    """

    def __init__(self):
        self.nodes = {}
        self.outputs = []
        self._nx = None
        self.sizes = {}  # symbolic size name -> the size traced (``ir.sizes.dims``)
        self.guards = []  # ``ir.sizes.guards.Guard``s taken while tracing

    def add_node(self, kind, op, inputs, params, shape, dtype, *, name=None,
                 source=None, value=None, meta=None):
        """A new node; ``op`` is an op node's ``Primitive``, or its name where a name is
        all the caller has (a graph read from JSON or written out by hand)."""
        if isinstance(op, Primitive):
            primitive, op = op, op.name
        else:
            primitive = primitive_named(op) if kind == "op" else None
        node_id = len(self.nodes)
        node = Node(node_id, kind, op, tuple(inputs), dict(params), tuple(shape),
                    np.dtype(dtype), name, source, value, dict(meta or {}), primitive)
        self.nodes[node_id] = node
        self._nx = None
        return node

    def copy(self):
        """A new graph with the same nodes (node objects are shared; they are not mutated)."""
        out = Graph()
        out.nodes = dict(self.nodes)
        out.outputs = list(self.outputs)
        out.sizes = dict(self.sizes)
        out.guards = list(self.guards)
        return out

    def __len__(self):
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes.values())

    def __getitem__(self, node_id):
        return self.nodes[node_id]

    def upstream(self, node_ids):
        """The ids of ``node_ids`` and of every node they depend on (``None`` ids ignored).

        One pass in reverse evaluation order: ids increase along every edge.
        """
        live = {i for i in node_ids if i is not None}
        for node in reversed(self.nodes.values()):
            if node.id in live:
                live.update(node.inputs)
        return live

    @property
    def leaves(self):
        return [n for n in self if n.kind != "op"]

    @property
    def nx(self):
        """The graph as a ``networkx.MultiDiGraph`` (built on first use, then cached); a
        body's graph has a view of its own (see the module docstring)."""
        if self._nx is None:
            import networkx

            g = networkx.MultiDiGraph()
            for node in self:
                g.add_node(node.id, kind=node.kind, op=node.op, params=node.params,
                           shape=node.shape, dtype=node.dtype, name=node.name,
                           source=node.source, value=node.value, meta=node.meta,
                           inputs=node.inputs, primitive=node.primitive)
                for position, arg in enumerate(node.inputs):
                    g.add_edge(arg, node.id, arg=position)
            self._nx = g
        return self._nx

    def names(self):
        """Deterministic display names: leaves by their name, ops ``t1, t2, ...``, and
        scalar constants by their value (listings write them inline)."""
        namer = Namer(taken=())
        names = {}
        ops = 0
        for node in self:
            if node.kind == "op":
                ops += 1
                names[node.id] = namer.claim(f"t{ops}")
            elif node.kind == "constant" and node.value is not None and np.ndim(node.value) == 0:
                names[node.id] = literal_text(node.value)
            else:
                names[node.id] = namer.claim(identifier(node.name, LEAF_FALLBACKS[node.kind]))
        return names

    def to_text(self, *, shapes=True, source=True):
        """One line per node, deterministic; scalar constants are written inline.

        A loop or branch node is typed by its results' types and followed by each
        body it holds, indented: a header naming the body and its inputs by role,
        then the body's own listing, which ends with its return line.
        """
        names = self.names()
        inline = {n.id: literal_text(n.value) for n in self
                  if n.kind == "constant" and n.value is not None and np.ndim(n.value) == 0}
        lines = []
        for node in self:
            if node.id in inline:
                continue
            lines.append(self._node_line(node, names, inline, shapes, source))
            for param, body in bodies_of(node):
                lines.append(f"  {body_header(param, body)}")
                lines.append(textwrap.indent(body.graph.to_text(shapes=shapes, source=source),
                                             "    "))
        if self.outputs:
            outs = ", ".join("None" if o is None else inline.get(o, names[o]) for o in self.outputs)
            lines.append(f"return {outs}")
        return "\n".join(lines)

    def _node_line(self, node, names, inline, shapes, source):
        head = names[node.id]
        if shapes:
            head += f": {node_type_text(self, node)}"
        if node.kind == "op":
            args = " ".join(inline.get(i, names[i]) for i in node.inputs)
            params = " ".join(f"{k}={self._listed_param(node, k, v)}"
                              for k, v in _shown_params(node))
            body = " ".join(p for p in (node.op, args, params) if p)
        else:
            body = node.kind
        line = f"{head} = {body}"
        notes = []
        if source and node.source is not None:
            notes.append(str(node.source))
        if "adjoint_of" in node.meta:
            notes.append(self._adjoint_note(node, names))
        if notes:
            line = f"{line:<48}  # {'; '.join(notes)}"
        return line

    def _listed_param(self, node, key, value):
        """A param as the listing shows it; one that lists a body's nodes (a loop's
        ``keep``) by the names the body's listing gives them."""
        body = node.primitive.results.node_lists.get(key) if bodies_of(node) else None
        if body is None:
            return _param_text(value)
        names = node.params[body].graph.names()
        return f"({', '.join(names[i] for i in value)}{',' if len(value) == 1 else ''})"

    def _adjoint_note(self, node, names):
        """``adjoint of t3 (model.py:9)``: the forward node and the user's line, or the
        line alone once optimisation removed the node."""
        of = node.meta["adjoint_of"]
        source = node.meta.get("adjoint_source")
        if source is None and of is not None:
            source = self[of].source
        where = f"{source}" if source is not None else ""
        if of is None:
            return f"adjoint of {where}" if where else "adjoint"
        return f"adjoint of {names[of]} ({where})" if where else f"adjoint of {names[of]}"

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        ops = sum(1 for n in self if n.kind == "op")
        return f"<ir.Graph {len(self)} nodes, {ops} ops>"


_DTYPE_SHORT = {"float64": "f64", "float32": "f32", "float16": "f16", "int64": "i64",
                "int32": "i32", "bool": "bool", "complex128": "c128", "complex64": "c64"}


def type_text(node):
    """``f64[4,2]``: the short dtype and the shape, as listings show them."""
    return _short_type(node.shape, node.dtype)


def node_type_text(graph, node):
    """``type_text``, or for a node with several results (a loop's, a branch's) the tuple
    of their types: ``(f64[2], f64[40])``."""
    facts = node.primitive.results if node.dtype == object and node.primitive else None
    types = facts.types(graph, node) if facts else None
    if types is None:
        return type_text(node)
    return f"({', '.join(_short_type(shape, np.dtype(dtype)) for shape, dtype in types)})"


def _short_type(shape, dtype):
    short = _DTYPE_SHORT.get(dtype.name, dtype.name)
    return f"{short}[{','.join(str(d) for d in shape)}]"


def bodies_of(node):
    """``(param name, body)`` of each body a loop or branch node holds, in params order:
    the params that hold a graph of their own (``ir.loops.body.Body``, which builds on
    this module, so it is known here by what it holds)."""
    return [(name, value) for name, value in node.params.items() if _is_body(value)]


def _is_body(value):
    return isinstance(getattr(value, "graph", None), Graph)


def body_header(param, body):
    """``body: carries y; xs x; invariants k``: a body named by its param, with its inputs
    by role.  A body with neither carries nor ``xs`` (a branch, a while loop's test)
    lists them as ``inputs``, each role in ``body.inputs`` order."""
    names = body.graph.names()
    roles = [("carries", body.carries), ("xs", body.xs), ("invariants", body.invariants)]
    if not body.carries and not body.xs:
        roles = [("inputs", body.inputs)]
    parts = [f"{role} {', '.join(names[i] for i in ids)}" for role, ids in roles if ids]
    return f"{param}: {'; '.join(parts) if parts else 'no inputs'}"


def literal_text(value):
    """A scalar constant as the listing writes it."""
    item = np.asarray(value).item()
    return repr(item)


def _shown_params(node):
    """A node's params, leaving out those at the default its source spelling omits too.

    A ``result`` node shows only its index (its type is its shape and dtype), and a
    loop or branch neither its bodies (listed beneath it) nor its unset params
    (``False``, ``None``, ``()``).
    """
    if node.primitive is result:
        return [("index", node.params["index"])]
    if bodies_of(node):
        return [(k, v) for k, v in node.params.items() if not _unshown_loop_param(v)]
    defaults = getattr(node.primitive.source, "defaults", {}) if node.primitive else {}
    return [(k, v) for k, v in node.params.items()
            if not (k in defaults and is_default(v, defaults[k]))]


def _unshown_loop_param(value):
    return (_is_body(value) or value is None or value is False
            or (isinstance(value, tuple) and not value))


def _param_text(value):
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    return repr(value)
