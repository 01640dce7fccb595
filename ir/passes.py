"""Optimisation passes over IR graphs: each small, all run to a fixed point by ``optimize``.

Adjoint graphs are built rule by rule, so they repeat themselves (each use of
a ``tanh`` brings its own ``1 - out * out``), push seeds of ones through
reshapes and broadcasts, and keep forward values no gradient reads.  Each
pass removes one kind of waste; ``optimize`` runs them in turn until none
finds anything more, so each pass can stay short and local, as in Tangent's
``optimization.py``.

Every rewrite keeps each surviving node's shape and dtype exactly, numpy's
weak typing of Python scalars included (``f32 * 2.0`` is float32 while
``f32 * np.asarray(2.0)`` is float64), and none assumes values are finite:
there is no ``x * 0 -> 0``, ``x - x -> 0`` or ``x / x -> 1``.  Three rewrites
can differ from the graph they replace in the last bits: folding constant
factors (``(g * 2.0) * 0.5 -> g``: rounded once instead of twice, and an
intermediate product that would overflow no longer does), merging nested
``sum_to`` (another summation order), and ``x + 0 -> x``, which keeps the sign
of a negative zero.

A pass never mutates its input graph or its nodes.  It returns a new graph,
numbered 0..n-1 in evaluation order, whose ``stats`` give the op counts before
and after and how many nodes the pass removed or rewrote.  Adjoint nodes keep
``meta["adjoint_of"]``, renumbered, and also get ``meta["adjoint_source"]``, the
source line of the node they differentiate, which outlives that node when
dead code elimination removes it (``adjoint_of`` is then ``None``).  Tangent
nodes keep ``meta["jvp_of"]`` and get ``meta["jvp_source"]`` the same way.
"""

import dataclasses

import numpy as np

from ir.graph import NODE_REFERENCES, Graph
from ir.primitive import PRIMITIVES
from ir.primitives.calls import Opaque
from ir.symbolic import PYTHON_SCALARS

FOLD_LIMIT = 64
"""Largest result, in elements, that constant folding writes out as a literal."""


# --- the driver ---------------------------------------------------------------

def optimize(graph):
    """A new graph computing ``graph.outputs`` with every pass run until none changes anything.

    ``stats`` on the result: ``ops_before``/``ops_after`` (op nodes),
    ``nodes_before``/``nodes_after``, ``rounds``, and for each pass by name the
    nodes it removed or rewrote over all rounds.
    """
    stats = {"ops_before": _op_count(graph), "nodes_before": len(graph), "rounds": 0}
    stats.update(dict.fromkeys((p.__name__ for p in PASSES), 0))
    changed = True
    while changed:
        stats["rounds"] += 1
        changed = False
        for optimization in PASSES:
            graph = optimization(graph)
            count = graph.stats[optimization.__name__]
            stats[optimization.__name__] += count
            changed = changed or count > 0
    stats.update(ops_after=_op_count(graph), nodes_after=len(graph))
    graph.stats = stats
    return graph


def _op_count(graph):
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
        return tuple(self.ids[i] for i in node.inputs)

    def keep(self, node, **changed):
        """Copy ``node`` into the new graph, with its inputs renumbered and ``changed``
        fields (``kind``, ``op``, ``inputs``, ``params``, ``value``) replaced."""
        fields = dict(kind=node.kind, op=node.op, inputs=self.inputs(node), params=node.params,
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
        forward = meta.get("adjoint_of")
        if forward is not None and self.old[forward].source is not None:
            meta.setdefault("adjoint_source", self.old[forward].source)
        tangent_of = meta.get("jvp_of")
        if tangent_of is not None and _line(self.old, tangent_of) is not None:
            meta.setdefault("jvp_source", _line(self.old, tangent_of))
        for key in NODE_REFERENCES:
            if meta.get(key) is not None:
                meta[key] = self.ids.get(meta[key])
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
        new.stats = {"ops_before": _op_count(self.old), "ops_after": _op_count(new),
                     pass_name: self.changes}
        return new


# --- dead code and common subexpressions ------------------------------------------

def _line(graph, node_id):
    """The user's line a node computes, or the one it differentiates."""
    node = graph[node_id]
    forward = node.meta.get("adjoint_of")
    return (node.source or node.meta.get("adjoint_source")
            or (graph[forward].source if forward is not None else None))


def eliminate_dead_code(graph):
    """Drop every node, leaves included, that no output depends on."""
    live = graph.upstream(graph.outputs)
    rewrite = Rewrite(graph)
    for node in graph:
        if node.id in live:
            rewrite.keep(node)
    rewrite.changes = len(graph) - len(live)
    return rewrite.finish("eliminate_dead_code")


def eliminate_common_subexpressions(graph):
    """Compute each value once: an op with the same primitive, inputs and params as an
    earlier one, or a constant equal to an earlier one, becomes that earlier node.

    Derivative rules add a node per use (two ``1 - out * out`` for one ``tanh``
    read twice, a fresh constant ``1`` each time); this is what keeps
    higher-order graphs from doubling with each order.
    """
    rewrite = Rewrite(graph)
    first = {}
    for node in graph:
        key = _value_key(node, rewrite.inputs(node))
        if key in first:
            rewrite.replace(node, first[key])
        else:
            new = rewrite.keep(node)
            if key is not None:
                first[key] = new.id
    return rewrite.finish("eliminate_common_subexpressions")


def _value_key(node, inputs):
    """Equal for two nodes exactly when they compute the same value; ``None`` for inputs
    and variables, which the caller supplies."""
    if node.kind == "op":
        if PRIMITIVES[node.op].commutative:
            inputs = tuple(sorted(inputs))
        return node.op, inputs, _canonical(node.params)
    if node.kind == "constant" and node.value is not None:
        return "constant", _canonical(node.value)
    return None


def _canonical(value):
    """A hashable stand-in for a param or constant, equal only where numpy sees no difference.

    Python scalars keep their type (``1``, ``1.0`` and ``True`` type results
    differently; ``-0.0`` is not ``0.0``), arrays are compared by dtype, shape
    and bytes (their repr elides), dtypes however they were spelled.
    """
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, _canonical(v)) for k, v in value.items()))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(_canonical(v) for v in value)
    if isinstance(value, slice):
        return "slice", _canonical(value.start), _canonical(value.stop), _canonical(value.step)
    if isinstance(value, Opaque):  # equal only to itself, whatever its repr
        return "opaque", id(value.value)
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return "dtype", np.dtype(value).str
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        return "array", array.dtype.str, array.shape, array.tobytes()
    return type(value).__name__, repr(value)


# --- constant folding ---------------------------------------------------------------

def fold_constants(graph):
    """Replace an op whose inputs are all constants by the constant it computes, when that
    has at most ``FOLD_LIMIT`` elements: larger literals would bloat generated code."""
    rewrite = Rewrite(graph)
    for node in graph:
        value = _folded(rewrite.new, node, rewrite.inputs(node)) if node.kind == "op" else None
        if value is None:
            rewrite.keep(node)
        else:
            rewrite.changes += 1
            rewrite.keep(node, kind="constant", op="constant", inputs=(), params={}, value=value,
                         name=node.name or _folded_name(rewrite.new, node, rewrite.inputs(node)))
    return rewrite.finish("fold_constants")


def _folded_name(graph, node, inputs):
    """A folded value's name in listings: its one named array input and the op
    (``x_transpose``), so a reader sees where the constant came from."""
    named = [graph[i].name for i in inputs if graph[i].name and graph[i].shape]
    return f"{named[0]}_{node.op}" if len(named) == 1 else None


def _folded(graph, node, inputs):
    """``node``'s value as an array (op results are never weakly typed), or ``None``."""
    args = [graph[i] for i in inputs]
    if (PRIMITIVES[node.op].python_only or np.prod(node.shape) > FOLD_LIMIT
            or not all(a.kind == "constant" and a.value is not None for a in args)):
        return None
    with np.errstate(all="ignore"):
        value = np.array(PRIMITIVES[node.op](*(a.value for a in args), **node.params))
    return value if value.shape == node.shape and value.dtype == node.dtype else None


# --- algebraic simplification ------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Term:
    """An op a node could be rewritten to; ``inputs`` are new ids, ``_Value``s or
    inner ``Term``s."""

    op: str
    inputs: tuple
    params: dict


@dataclasses.dataclass(frozen=True)
class _Value:
    """A constant a rewrite needs, added to the graph only once the rewrite is accepted."""

    value: object


def simplify(graph):
    """Algebraic rewrites (see ``_RULES``), each replacing a node by an existing node or
    by one op no more costly; applied to each node until none fits."""
    rewrite = Rewrite(graph)
    for node in graph:
        result = _simplest(rewrite, node) if node.kind == "op" else None
        if isinstance(result, int):
            rewrite.replace(node, result)
        elif result is None:
            rewrite.keep(node)
        else:
            rewrite.changes += 1
            rewrite.keep(node, op=result.op, inputs=result.inputs, params=result.params)
    return rewrite.finish("simplify")


def _simplest(rewrite, node):
    """The new id of an existing node equal to ``node``, else a simpler ``Term`` for it,
    else ``None``.  A candidate is accepted only if it has ``node``'s shape and dtype."""
    graph = rewrite.new
    current = Term(node.op, rewrite.inputs(node), node.params)
    result = None
    while True:
        accepted = next((c for rule in _RULES for c in rule(graph, current)
                         if _fits(graph, c, node)), None)
        if accepted is None or isinstance(accepted, int):
            return result if accepted is None else accepted
        inputs = tuple(_materialized(rewrite, a, node) for a in accepted.inputs)
        result = current = Term(accepted.op, inputs, accepted.params)


def _materialized(rewrite, arg, node):
    """A rewrite's argument as a new id: constants and inner terms become nodes (an inner
    term inherits ``node``'s line and marks)."""
    if isinstance(arg, _Value):
        return rewrite.constant(arg.value)
    if isinstance(arg, Term):
        inputs = tuple(_materialized(rewrite, a, node) for a in arg.inputs)
        shape, dtype = abstract_of(rewrite.new, Term(arg.op, inputs, arg.params))
        return rewrite.new.add_node("op", arg.op, inputs, arg.params, shape, dtype,
                                    source=node.source, meta=rewrite.meta_of(node)).id
    return arg


def abstract_of(graph, term):
    """``(shape, dtype)`` of ``term`` evaluated in ``graph``."""
    avals = [_aval(graph, a) for a in term.inputs]
    shape, dtype = PRIMITIVES[term.op].abstract(avals, term.params)
    return tuple(shape), np.dtype(dtype)


def _fits(graph, candidate, node):
    """True when ``candidate`` has exactly ``node``'s shape and dtype.

    An op's result is never weakly typed, so a Python scalar constant cannot
    stand for it: ``f32 * reshape(2.0)`` is float64 where ``f32 * 2.0`` is not.
    """
    if isinstance(candidate, int):
        other = graph[candidate]
        return not _is_weak(other) and other.shape == node.shape and other.dtype == node.dtype
    return abstract_of(graph, candidate) == (node.shape, node.dtype)


def _is_weak(node):
    return node.kind == "constant" and isinstance(node.value, PYTHON_SCALARS)


def _aval(graph, arg):
    """What ``Primitive.abstract`` takes for an argument: a weak scalar itself, else
    ``(shape, dtype)``."""
    if isinstance(arg, Term):
        return abstract_of(graph, arg)
    if isinstance(arg, _Value):
        value = arg.value
    else:
        node = graph[arg]
        value = node.value if _is_weak(node) else None
        if value is None:
            return node.shape, node.dtype
    return value if isinstance(value, PYTHON_SCALARS) else (np.shape(value), np.result_type(value))


def _uniform(node):
    """The value every element of a constant node holds, else ``None``."""
    if node.kind != "constant" or node.value is None or np.size(node.value) == 0:
        return None
    array = np.asarray(node.value)
    first = array.flat[0]
    return first if np.all(array == first) else None


def _identities(graph, term):
    """``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0``, ``x / 1`` and ``x ** 1`` are ``x``
    (not for complex ``x``: ``(inf + 0j) * 1`` is nan in numpy's complex product)."""
    for x, unit in PRIMITIVES[term.op].units:
        if graph[term.inputs[x]].dtype.kind != "c" and _uniform(graph[term.inputs[1 - x]]) == unit:
            yield term.inputs[x]


def _negations(graph, term):
    """``-(-x)`` is ``x``; ``x + (-y)`` is ``x - y``, ``(-x) + y`` is ``y - x`` and
    ``x - (-y)`` is ``x + y``, bit for bit (subtraction is addition of the negation)."""
    if term.op == "negative":
        inner = graph[term.inputs[0]]
        if inner.op == "negative":
            yield inner.inputs[0]
    elif term.op in ("add", "subtract"):
        x, y = term.inputs
        if graph[y].op == "negative":
            yield Term("subtract" if term.op == "add" else "add", (x, graph[y].inputs[0]), {})
        if term.op == "add" and graph[x].op == "negative":
            yield Term("subtract", (y, graph[x].inputs[0]), {})


def _transposes(graph, term):
    """A transpose of a transpose is one transpose; the identity permutation is no transpose."""
    if term.op != "transpose":
        return
    x = graph[term.inputs[0]]
    axes = _permutation(term.params["axes"], len(x.shape))
    if x.op == "transpose":
        inner = _permutation(x.params["axes"], len(x.shape))
        axes = tuple(inner[i] for i in axes)
        x = graph[x.inputs[0]]
    if axes == tuple(range(len(axes))):
        yield x.id
    elif x.id != term.inputs[0]:
        yield Term("transpose", (x.id,), {"axes": axes})


def _permutation(axes, rank):
    if axes is None:
        return tuple(reversed(range(rank)))
    return tuple(int(a) % rank for a in axes)


def _reshapes(graph, term):
    """A reshape, broadcast, ``sum_to`` or cast to its input's own shape and dtype is its
    input; a reshape of a reshape is one reshape (so with broadcasts and ``sum_to``)."""
    if term.op not in ("reshape", "broadcast_to", "sum_to", "cast"):
        return
    x = graph[term.inputs[0]]
    yield x.id
    if term.op != "cast" and x.op == term.op:
        yield Term(term.op, x.inputs, term.params)


def _implicit_broadcasts(graph, term):
    """Elementwise primitives broadcast their operands themselves: a ``broadcast_to``
    operand can be what it broadcasts, a reshape that only puts unit axes in front
    what it reshapes, a constant array of one repeated value a 0-d array of that
    value and dtype (which types results as the array did), when the result
    keeps its shape."""
    if not PRIMITIVES[term.op].elementwise:
        return
    for k, arg in enumerate(term.inputs):
        node = graph[arg]
        if node.op == "broadcast_to" or _adds_leading_units(graph, node):
            yield Term(term.op, _put(term.inputs, k, node.inputs[0]), term.params)
        elif node.kind == "constant" and np.ndim(node.value) > 0:
            value = _uniform(node)
            if value is not None:
                scalar = _Value(np.asarray(value, dtype=node.dtype))
                yield Term(term.op, _put(term.inputs, k, scalar), term.params)


def _adds_leading_units(graph, node):
    """A reshape that only adds size-one axes in front, which broadcasting adds anyway."""
    if node.op != "reshape":
        return False
    inner = graph[node.inputs[0]].shape
    lead = len(node.shape) - len(inner)
    return lead > 0 and node.shape[lead:] == inner and all(d == 1 for d in node.shape[:lead])


def _broadcast_constants(graph, term):
    """An elementwise op on constants, some of them broadcast, is the broadcast of the
    op on the constants themselves: ``broadcast_to(c, S) * 2`` is ``broadcast_to(c * 2, S)``,
    a small constant that ``_implicit_broadcasts`` can then drop into its user."""
    if not PRIMITIVES[term.op].elementwise:
        return
    nodes = [graph[arg] for arg in term.inputs]
    broadcast = [n.op == "broadcast_to" for n in nodes]
    sources = [graph[n.inputs[0]] if b else n for n, b in zip(nodes, broadcast)]
    if not any(broadcast) or any(s.kind != "constant" or s.value is None for s in sources):
        return
    # What broadcast_to made is an array, so its source is taken as one (never weakly typed).
    args = [np.asarray(s.value) if b else s.value for s, b in zip(sources, broadcast)]
    with np.errstate(all="ignore"):
        value = np.array(PRIMITIVES[term.op](*args, **term.params))
    if value.size <= FOLD_LIMIT:
        shape = np.broadcast_shapes(*(n.shape for n in nodes))
        yield Term("broadcast_to", (_Value(value),), {"shape": shape})


def _weak_scalars(graph, term):
    """A floating 0-d array operand of an elementwise op reads better as a Python float,
    which numpy types weakly; kept only where the result's dtype stays as it was
    (``f64 * np.float64(2.0)`` becomes ``f64 * 2.0``, ``f32 * np.float64(2.0)`` stays)."""
    if not PRIMITIVES[term.op].elementwise:
        return
    for k, arg in enumerate(term.inputs):
        node = graph[arg]
        if (node.kind == "constant" and not _is_weak(node) and np.ndim(node.value) == 0
                and node.dtype.kind == "f"):
            number = _Value(np.asarray(node.value).item())
            yield Term(term.op, _put(term.inputs, k, number), term.params)


def _put(items, position, item):
    return items[:position] + (item,) + items[position + 1:]


def _scale_factors(graph, term):
    """Two constant factors in a row are one: ``(g * 2.0) * 0.5`` is ``g * 1.0``, ``-(g / 4)``
    is ``g / -4``, ``(g * c) * d`` is ``g * (c * d)`` for small constant arrays ``c``, ``d``.

    Only for floating ``g`` (``-g`` is no ``g * -1`` for unsigned integers), and
    only with finite nonzero factors, so no nan or inf appears where the graph
    had none.
    """
    outer = _scaling(graph, term)
    inner = outer and _scaling(graph, graph[outer[0]])
    if not inner or graph[inner[0]].dtype.kind != "f":
        return
    (_, outer_op, c), (g, inner_op, d) = outer, inner
    op, factor = _combined(outer_op, c, inner_op, d)
    if _finite_nonzero(factor) and np.size(factor) <= FOLD_LIMIT:
        yield Term(op, (g, _Value(factor if isinstance(factor, PYTHON_SCALARS)
                                   else np.asarray(factor))), {})


def _combined(outer_op, c, inner_op, d):
    """``(op, factor)`` with ``g op factor`` equal to ``(g inner_op d) outer_op c``.  A sign
    change meeting a division keeps the division, which is then exact: ``-(g / 3)``
    is ``g / -3``, where ``g * (-1 / 3)`` would round."""
    if outer_op == inner_op == "divide":
        return "divide", d * c
    if outer_op == "divide":
        return ("divide", -c) if _is_minus_one(d) else ("multiply", d / c)
    if inner_op == "divide":
        return ("divide", -d) if _is_minus_one(c) else ("multiply", c / d)
    return "multiply", d * c


def _is_minus_one(value):
    return np.ndim(value) == 0 and value == -1


def _scaling(graph, term):
    """``(g, op, c)`` when ``term`` is ``g * c``, ``c * g``, ``g / c`` or ``-g`` (``g * -1``)
    for a constant factor ``c`` (see ``_factor``); else ``None``."""
    if term.op == "negative":
        return term.inputs[0], "multiply", -1
    positions = {"multiply": (0, 1), "divide": (1,)}.get(term.op, ())
    for k in positions:
        c = _factor(graph[term.inputs[k]])
        if c is not None:
            return term.inputs[1 - k], term.op, c
    return None


def _factor(node):
    """A small real constant's value with no zero or non-finite element, as weakly
    typed as the node holds it; else ``None``."""
    if (node.kind != "constant" or node.value is None or np.size(node.value) > FOLD_LIMIT
            or node.dtype.kind not in "if" or not _finite_nonzero(node.value)):
        return None
    return node.value if _is_weak(node) else np.asarray(node.value)


def _finite_nonzero(value):
    return bool(np.all(np.isfinite(np.asarray(value, dtype=np.float64))) and np.all(value != 0))


def _zeroth_powers(graph, term):
    """``x ** 0`` is ones for every ``x``, nan and inf included (numpy defines it so);
    derivative rules of powers make such terms at every order."""
    if term.op == "power" and _uniform(graph[term.inputs[1]]) == 0:
        base, exponent = graph[term.inputs[0]], graph[term.inputs[1]]
        dtype = np.result_type(np.zeros((), base.dtype), exponent.value
                               if _is_weak(exponent) else np.zeros((), exponent.dtype))
        shape = np.broadcast_shapes(base.shape, exponent.shape)
        yield Term("broadcast_to", (_Value(np.ones((), dtype)),), {"shape": shape})


def _broadcasts_last(graph, term):
    """A one-input elementwise op of a broadcast is the broadcast of the op, which
    computes each distinct value once (``np.conj(np.broadcast_to(s, S))``)."""
    if len(term.inputs) != 1 or not PRIMITIVES[term.op].elementwise:
        return
    inner = graph[term.inputs[0]] if isinstance(term.inputs[0], int) else None
    if inner is not None and inner.op == "broadcast_to":
        yield Term("broadcast_to", (Term(term.op, inner.inputs, term.params),),
                    inner.params)


def _doubling(graph, term):
    """``x + x`` is ``x * 2`` bit for bit, which ``_scale_factors`` can fold further
    (not for complex ``x``, where numpy's product meets ``inf * 0``)."""
    if term.op == "add" and term.inputs[0] == term.inputs[1]:
        if graph[term.inputs[0]].dtype.kind in "fi":
            yield Term("multiply", (term.inputs[0], _Value(2)), {})


_RULES = (_identities, _negations, _transposes, _reshapes, _implicit_broadcasts,
          _broadcast_constants, _scale_factors, _doubling, _zeroth_powers, _broadcasts_last,
          _weak_scalars)
"""Each rule yields candidates for a ``Term``: an existing node's new id, or a new ``Term``."""

from ir.polynomials import collect_polynomials  # noqa: E402 (it builds on the names above)

PASSES = (eliminate_dead_code, fold_constants, simplify, eliminate_common_subexpressions,
          collect_polynomials)
"""One round of ``optimize``, in order."""
