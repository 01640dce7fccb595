"""Algebraic simplification: each node rewritten to an existing node or to one op no
more costly, by small rules (``_RULES``), until none fits.

Every rewrite keeps each surviving node's shape and dtype exactly, numpy's
weak typing of Python scalars included, and none assumes values are finite
(see ``ir.optimize.passes``).
"""

import dataclasses

import numpy as np

from ir.primitives.broadcast import broadcast_to, sum_to
from ir.primitives.elementwise import add, divide, multiply, negative, power, subtract
from ir.primitives.reductions import sum_
from ir.primitives.shape import cast, getitem, reshape, stack, transpose
from ir.optimize.rewrite import FOLD_LIMIT, Rewrite
from ir.symbolic import PYTHON_SCALARS, is_weak_constant
from ir.sizes.shape_rules import broadcast_shapes


@dataclasses.dataclass(frozen=True)
class Term:
    """An op a node could be rewritten to; ``inputs`` are new ids, ``_Value``s or
    inner ``Term``s."""

    primitive: object
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
            rewrite.keep(node, op=result.primitive, inputs=result.inputs, params=result.params)
    return rewrite.finish("simplify")


def _simplest(rewrite, node):
    """The new id of an existing node equal to ``node``, else a simpler ``Term`` for it,
    else ``None``.  A candidate is accepted only if it has ``node``'s shape and dtype."""
    graph = rewrite.new
    current = Term(node.primitive, rewrite.inputs(node), node.params)
    result = None
    while True:
        accepted = next((c for rule in _RULES for c in rule(graph, current)
                         if _fits(graph, c, node)), None)
        if accepted is None or isinstance(accepted, int):
            return result if accepted is None else accepted
        inputs = tuple(_materialized(rewrite, a, node) for a in accepted.inputs)
        result = current = Term(accepted.primitive, inputs, accepted.params)


def _materialized(rewrite, arg, node):
    """A rewrite's argument as a new id: constants and inner terms become nodes (an inner
    term inherits ``node``'s line and marks)."""
    if isinstance(arg, _Value):
        return rewrite.constant(arg.value)
    if isinstance(arg, Term):
        inputs = tuple(_materialized(rewrite, a, node) for a in arg.inputs)
        shape, dtype = abstract_of(rewrite.new, Term(arg.primitive, inputs, arg.params))
        return rewrite.new.add_node("op", arg.primitive, inputs, arg.params, shape, dtype,
                                    source=node.source, meta=rewrite.meta_of(node)).id
    return arg


def abstract_of(graph, term):
    """``(shape, dtype)`` of ``term`` evaluated in ``graph``."""
    avals = [_aval(graph, a) for a in term.inputs]
    shape, dtype = term.primitive.abstract(avals, term.params)
    return tuple(shape), np.dtype(dtype)


def _fits(graph, candidate, node):
    """True when ``candidate`` has exactly ``node``'s shape and dtype.

    An op's result is never weakly typed, so a Python scalar constant cannot
    stand for it: ``f32 * reshape(2.0)`` is float64 where ``f32 * 2.0`` is not.
    """
    if isinstance(candidate, int):
        other = graph[candidate]
        return not is_weak_constant(other) and other.shape == node.shape and other.dtype == node.dtype
    return abstract_of(graph, candidate) == (node.shape, node.dtype)


def _aval(graph, arg):
    """What ``Primitive.abstract`` takes for an argument: a weak scalar itself, else
    ``(shape, dtype)``."""
    if isinstance(arg, Term):
        return abstract_of(graph, arg)
    if isinstance(arg, _Value):
        value = arg.value
    else:
        node = graph[arg]
        value = node.value if is_weak_constant(node) else None
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
    for x, unit in term.primitive.units:
        if graph[term.inputs[x]].dtype.kind != "c" and _uniform(graph[term.inputs[1 - x]]) == unit:
            yield term.inputs[x]


def _negations(graph, term):
    """``-(-x)`` is ``x``; ``x + (-y)`` is ``x - y``, ``(-x) + y`` is ``y - x`` and
    ``x - (-y)`` is ``x + y``, bit for bit (subtraction is addition of the negation)."""
    if term.primitive is negative:
        inner = graph[term.inputs[0]]
        if inner.primitive is negative:
            yield inner.inputs[0]
    elif term.primitive in (add, subtract):
        x, y = term.inputs
        if graph[y].primitive is negative:
            yield Term(subtract if term.primitive is add else add, (x, graph[y].inputs[0]), {})
        if term.primitive is add and graph[x].primitive is negative:
            yield Term(subtract, (y, graph[x].inputs[0]), {})


def _transposes(graph, term):
    """A transpose of a transpose is one transpose; the identity permutation is no transpose."""
    if term.primitive is not transpose:
        return
    x = graph[term.inputs[0]]
    axes = _permutation(term.params["axes"], len(x.shape))
    if x.primitive is transpose:
        inner = _permutation(x.params["axes"], len(x.shape))
        axes = tuple(inner[i] for i in axes)
        x = graph[x.inputs[0]]
    if axes == tuple(range(len(axes))):
        yield x.id
    elif x.id != term.inputs[0]:
        yield Term(transpose, (x.id,), {"axes": axes})


def _permutation(axes, rank):
    if axes is None:
        return tuple(reversed(range(rank)))
    return tuple(int(a) % rank for a in axes)


def _reshapes(graph, term):
    """A reshape, broadcast, ``sum_to`` or cast to its input's own shape and dtype is its
    input, and so is the sum of a scalar (of one addend: the sign of a zero is kept, as
    ``x + 0`` is ``x`` keeps it); a reshape of a reshape is one reshape (so with
    broadcasts and ``sum_to``)."""
    if term.primitive is sum_ and graph[term.inputs[0]].shape == ():
        yield term.inputs[0]
    if term.primitive not in (reshape, broadcast_to, sum_to, cast):
        return
    x = graph[term.inputs[0]]
    yield x.id
    if term.primitive is not cast and x.primitive is term.primitive:
        yield Term(term.primitive, x.inputs, term.params)


def _implicit_broadcasts(graph, term):
    """Elementwise primitives broadcast their operands themselves: a ``broadcast_to``
    operand can be what it broadcasts, a reshape that only puts unit axes in front
    what it reshapes, a constant array of one repeated value a 0-d array of that
    value and dtype (which types results as the array did), when the result
    keeps its shape."""
    if not term.primitive.elementwise:
        return
    for k, arg in enumerate(term.inputs):
        node = graph[arg]
        if node.primitive is broadcast_to or _adds_leading_units(graph, node):
            yield Term(term.primitive, _put(term.inputs, k, node.inputs[0]), term.params)
        elif node.kind == "constant" and np.ndim(node.value) > 0:
            value = _uniform(node)
            if value is not None:
                scalar = _Value(np.asarray(value, dtype=node.dtype))
                yield Term(term.primitive, _put(term.inputs, k, scalar), term.params)


def _adds_leading_units(graph, node):
    """A reshape that only adds size-one axes in front, which broadcasting adds anyway."""
    if node.primitive is not reshape:
        return False
    inner = graph[node.inputs[0]].shape
    lead = len(node.shape) - len(inner)
    return lead > 0 and node.shape[lead:] == inner and all(d == 1 for d in node.shape[:lead])


def _broadcast_constants(graph, term):
    """An elementwise op on constants, some of them broadcast, is the broadcast of the
    op on the constants themselves: ``broadcast_to(c, S) * 2`` is ``broadcast_to(c * 2, S)``,
    a small constant that ``_implicit_broadcasts`` can then drop into its user."""
    if not term.primitive.elementwise:
        return
    nodes = [graph[arg] for arg in term.inputs]
    broadcast = [n.primitive is broadcast_to for n in nodes]
    if not any(broadcast):
        return
    sources = [graph[n.inputs[0]] if b else n for n, b in zip(nodes, broadcast)]
    if any(s.kind != "constant" or s.value is None for s in sources):
        return
    # What broadcast_to made is an array, so its source is taken as one (never weakly typed).
    args = [np.asarray(s.value) if b else s.value for s, b in zip(sources, broadcast)]
    with np.errstate(all="ignore"):
        value = np.array(term.primitive(*args, **term.params))
    if value.size <= FOLD_LIMIT:
        shape = broadcast_shapes(*(n.shape for n in nodes))
        yield Term(broadcast_to, (_Value(value),), {"shape": shape})


def _weak_scalars(graph, term):
    """A floating 0-d constant operand of an elementwise op, a 0-d array or a numpy scalar,
    reads better as a Python float, which numpy types weakly and builds at no cost; it
    is rewritten only where that computes the same (see ``python_number``)."""
    if not term.primitive.elementwise:
        return
    dtype = None
    for k, arg in enumerate(term.inputs):
        node = graph[arg]
        if (node.kind != "constant" or node.dtype.kind != "f" or _is_python_number(node)
                or np.ndim(node.value) != 0):
            continue
        if dtype is None:
            dtype = abstract_of(graph, term)[1]
        number = python_number(graph, term.inputs, k, dtype)
        if number is not None:
            yield Term(term.primitive, _put(term.inputs, k, _Value(number)), term.params)


def python_number(graph, inputs, position, dtype):
    """The Python number that constant ``inputs[position]`` of an elementwise op of result
    ``dtype`` can be written as, computing the same, or ``None``.

    A 0-d array or a numpy scalar (``np.float64(2.0)``, which is also a Python
    float) is typed strongly, a Python number weakly; numpy computes alike with
    either only where the result and the other operands have the constant's
    dtype (Python numbers aside, and one of them at least an array): then it
    computes in that dtype both ways.  ``f64 * np.float64(2.0)`` is ``f64 * 2.0``;
    ``f32 * np.float64(2.0)`` is float64 where ``f32 * 2.0`` is float32, and
    ``f32 <= np.float64(0.1)`` compares in float64 where ``f32 <= 0.1`` would
    compare in float32, so both stay.
    """
    node = graph[inputs[position]]
    if (node.kind != "constant" or node.value is None or _is_python_number(node)
            or np.ndim(node.value) != 0 or node.dtype != dtype):
        return None
    others = [graph[i] for k, i in enumerate(inputs) if k != position]
    arrays = [other for other in others if not _is_python_number(other)]
    if not arrays or any(other.dtype != dtype for other in arrays):
        return None
    number = np.asarray(node.value).item()
    return number if type(number) in PYTHON_SCALARS else None  # (no Python long double)


def _is_python_number(node):
    """A constant held as a Python number itself: not a numpy scalar, though ``np.float64``
    and ``np.complex128`` are subclasses of Python's ``float`` and ``complex``."""
    return node.kind == "constant" and type(node.value) in PYTHON_SCALARS


def _put(items, position, item):
    return items[:position] + (item,) + items[position + 1:]


def _scale_factors(graph, term):
    """Two constant factors in a row are one: ``(g * 2.0) * 0.5`` is ``g * 1.0``, ``-(g / 4)``
    is ``g / -4``, ``(g * c) * d`` is ``g * (c * d)`` for small constant arrays ``c``, ``d``.

    Only for floating ``g`` (``-g`` is no ``g * -1`` for unsigned integers), and
    only with finite nonzero factors, so no nan or inf appears where the graph
    had none.
    """
    outer = scaling(graph, term)
    inner = outer and scaling(graph, graph[outer[0]])
    if not inner or graph[inner[0]].dtype.kind != "f":
        return
    (_, outer_op, c), (g, inner_op, d) = outer, inner
    op, factor = combined(outer_op, c, inner_op, d)
    if finite_nonzero(factor) and np.size(factor) <= FOLD_LIMIT:
        yield Term(op, (g, factor_value(factor)), {})


def factor_value(factor):
    """A combined factor as a constant to add: a Python number stays one (weakly typed), a
    numpy scalar (``2 * np.float64(-200.0)``, strongly typed, though a ``float``) becomes
    the 0-d array it stands for, which ``_weak_scalars`` writes as a Python float where
    the dtype allows."""
    return _Value(factor if type(factor) in (int, float, complex) else np.asarray(factor))


def combined(outer_op, c, inner_op, d):
    """``(op, factor)`` with ``g op factor`` equal to ``(g inner_op d) outer_op c``.  A sign
    change meeting a division keeps the division, which is then exact: ``-(g / 3)``
    is ``g / -3``, where ``g * (-1 / 3)`` would round."""
    if outer_op is inner_op is divide:
        return divide, d * c
    if outer_op is divide:
        return (divide, -c) if _is_minus_one(d) else (multiply, d / c)
    if inner_op is divide:
        return (divide, -d) if _is_minus_one(c) else (multiply, c / d)
    return multiply, d * c


def _is_minus_one(value):
    return np.ndim(value) == 0 and value == -1


def scaling(graph, term):
    """``(g, op, c)`` when ``term`` is ``g * c``, ``c * g``, ``g / c`` or ``-g`` (``g * -1``)
    for a constant factor ``c`` (see ``_factor``); else ``None``."""
    if term.primitive is negative:
        return term.inputs[0], multiply, -1
    positions = {multiply: (0, 1), divide: (1,)}.get(term.primitive, ())
    for k in positions:
        c = _factor(graph[term.inputs[k]])
        if c is not None:
            return term.inputs[1 - k], term.primitive, c
    return None


def _factor(node):
    """A small real constant's value with no zero or non-finite element, as weakly
    typed as the node holds it; else ``None``."""
    if (node.kind != "constant" or node.value is None or np.size(node.value) > FOLD_LIMIT
            or node.dtype.kind not in "if" or not finite_nonzero(node.value)):
        return None
    return node.value if is_weak_constant(node) else np.asarray(node.value)


def finite_nonzero(value):
    """Constants the passes compute with: zeros and infinities stay where they are, so
    no rewrite changes where a result is nan."""
    if value is None or np.size(value) == 0:
        return False
    array = np.asarray(value)
    return (array.dtype.kind in "iuf" and bool(np.all(np.isfinite(array)))
            and bool(np.all(array != 0)))


def _zeroth_powers(graph, term):
    """``x ** 0`` is ones for every ``x``, nan and inf included (numpy defines it so);
    derivative rules of powers make such terms at every order."""
    if term.primitive is power and _uniform(graph[term.inputs[1]]) == 0:
        base, exponent = graph[term.inputs[0]], graph[term.inputs[1]]
        dtype = np.result_type(np.zeros((), base.dtype), exponent.value
                               if is_weak_constant(exponent) else np.zeros((), exponent.dtype))
        shape = broadcast_shapes(base.shape, exponent.shape)
        yield Term(broadcast_to, (_Value(np.ones((), dtype)),), {"shape": shape})


def _broadcasts_last(graph, term):
    """A one-input elementwise op of a broadcast is the broadcast of the op, which
    computes each distinct value once (``np.conj(np.broadcast_to(s, S))``)."""
    if len(term.inputs) != 1 or not term.primitive.elementwise:
        return
    inner = graph[term.inputs[0]] if isinstance(term.inputs[0], int) else None
    if inner is not None and inner.primitive is broadcast_to:
        yield Term(broadcast_to, (Term(term.primitive, inner.inputs, term.params),),
                    inner.params)


def _doubling(graph, term):
    """``x + x`` is ``x * 2`` bit for bit, which ``_scale_factors`` can fold further
    (not for complex ``x``, where numpy's product meets ``inf * 0``)."""
    if term.primitive is add and term.inputs[0] == term.inputs[1]:
        if graph[term.inputs[0]].dtype.kind in "fi":
            yield Term(multiply, (term.inputs[0], _Value(2)), {})


def _restacked_rows(graph, term):
    """A stack of consecutive rows of one array, ``x[i], ..., x[j - 1]``, is ``x[i:j]``, of
    all its rows ``x``, and of rows in reverse a slice with step -1: the same values, and
    no copy (a loop over a tensor's rows whose per-step products ``ir.optimize.shared_products``
    stacks reads the tensor)."""
    if term.primitive is not stack or term.params["axis"] != 0:
        return
    rows = [graph[i] for i in term.inputs if isinstance(i, int)]
    if len(rows) != len(term.inputs) or any(
            r.primitive is not getitem or len(r.inputs) != 1 or len(r.params["key"]) != 1
            or r.inputs[0] != rows[0].inputs[0] for r in rows):
        return
    source = graph[rows[0].inputs[0]]
    keys = [r.params["key"][0] for r in rows]
    size = source.shape[0]
    if not isinstance(size, int) or not all(type(k) is int and -size <= k < size for k in keys):
        return
    start, count = keys[0] % size, len(keys)
    if [k % size for k in keys] == list(range(start, start + count)):
        if count == size:
            yield source.id
        span = slice(start, start + count)
    elif [k % size for k in keys] == list(range(start, start - count, -1)):
        span = slice(None if start == size - 1 else start,
                     None if start + 1 == count else start - count, -1)
    else:
        return
    yield Term(getitem, (source.id,), {"key": (span,)})


_RULES = (_identities, _negations, _transposes, _reshapes, _implicit_broadcasts,
          _broadcast_constants, _scale_factors, _doubling, _zeroth_powers, _broadcasts_last,
          _weak_scalars, _restacked_rows)
"""Each rule yields candidates for a ``Term``: an existing node's new id, or a new ``Term``."""
