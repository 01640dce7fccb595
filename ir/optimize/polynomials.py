"""An optimisation pass: elementwise arithmetic in one value, rewritten in Horner form.

Higher derivatives of elementwise functions are polynomials in values the
first derivative already has: the k-th derivative of ``tanh`` is a
polynomial of degree k + 1 in ``tanh``.  Nested tapes build it as a tree of
sums and products that doubles with each order; in Horner form it costs two
operations per degree.  The pass works out the polynomial of every value
computed from one other value (its variable) and constants by ``add``,
``subtract``, ``multiply``, ``negative``, ``square`` and small integer
powers, and rewrites the values other operations use in Horner form when
that takes fewer operations than it makes unnecessary (arithmetic that
other values still read stays).  The coefficients are constant arrays computed
once; only the order of the floating-point operations changes.
"""

import dataclasses

import numpy as np

from ir.primitives.elementwise import add, multiply, negative, power, square, subtract
from ir.optimize.rewrite import WHOLE_VALUE_MARKS, Rewrite
from ir.optimize.simplify import Term, abstract_of, finite_nonzero
from ir.sizes.shape_rules import broadcast_shapes

MAX_DEGREE = 16
"""Polynomials of higher degree are left as they are."""

_ARITHMETIC = {add, subtract, multiply, negative, square, power}


class _Polynomial:
    """``sum(coefficients[j] * variable ** j)``; ``variable`` is a node id, or ``None``
    for a constant.  A coefficient ``None`` is a term that is not there, as opposed
    to one whose constant is zero (``0 * x`` is nan where ``x`` is infinite)."""

    __slots__ = ("variable", "coefficients")

    def __init__(self, variable, coefficients):
        self.variable = variable
        self.coefficients = coefficients


def collect_polynomials(graph):
    """Rewrite in Horner form each polynomial other operations read whose Horner form
    takes fewer operations than the arithmetic it would make unnecessary."""
    polynomials = _polynomials(graph)
    roots = _roots(graph, polynomials)
    consumers = _consumers(graph)
    kept = roots | set(graph.outputs)
    rewritten = {root for root in roots
                 if 0 < _horner(polynomials[root])
                 < _freed_by_rewriting(graph, polynomials, kept, consumers, root)}
    rewrite = Rewrite(graph)
    for node in graph:
        if node.id in rewritten:
            rewrite.ids[node.id] = _emit(rewrite, node, polynomials[node.id])
            rewrite.changes += 1
        else:
            rewrite.keep(node)
    return rewrite.finish("collect_polynomials")


def _polynomials(graph):
    """The polynomial of each node that has one (constants included)."""
    found = {}
    for node in graph:
        if node.kind == "constant" and finite_nonzero(node.value):
            found[node.id] = _Polynomial(None, [node.value])
        elif node.kind == "op" and node.primitive in _ARITHMETIC and node.dtype.kind == "f":
            polynomial = _combine(node, [_operand(graph, found, i) for i in node.inputs])
            if polynomial is not None and _fits(node, polynomial, graph):
                found[node.id] = polynomial
    return found


def _operand(graph, found, node_id):
    """An input as a polynomial: its own, or (any other value) the variable itself."""
    if node_id in found:
        return found[node_id]
    return _Polynomial(node_id, [None, 1])


def _combine(node, operands):
    variables = {p.variable for p in operands} - {None}
    if len(variables) > 1:
        return None
    variable = variables.pop() if variables else None
    coefficients = [p.coefficients for p in operands]
    primitive = node.primitive
    if primitive is add:
        result = _sum(*coefficients)
    elif primitive is subtract:
        result = _sum(coefficients[0], _negated(coefficients[1]))
    elif primitive is negative:
        result = _negated(coefficients[0])
    elif primitive is multiply:
        result = _product(*coefficients)
    elif primitive is square:
        result = _product(coefficients[0], coefficients[0])
    else:
        result = _power(operands)
    if result is None or len(result) - 1 > MAX_DEGREE:
        return None
    return _Polynomial(variable, result)


def _power(operands):
    base, exponent = operands
    if exponent.variable is not None or len(exponent.coefficients) != 1:
        return None
    value = exponent.coefficients[0]
    if np.ndim(value) or not float(value).is_integer() or not 1 <= value <= 4:
        return None
    result = [1]
    for _ in range(int(value)):
        result = _product(result, base.coefficients)
    return result


def _negated(a):
    return [None if c is None else -c for c in a]


def _sum(a, b):
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    return [_plus(c, shorter[j]) if j < len(shorter) else c for j, c in enumerate(longer)]


def _plus(c, d):
    return c if d is None else d if c is None else c + d


def _product(a, b):
    result = [None] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            if x is not None and y is not None:
                result[i + j] = _plus(result[i + j], x * y)
    return result


def _fits(node, polynomial, graph):
    """The polynomial, evaluated, has the node's shape and dtype."""
    if polynomial.variable is None:
        return True
    variable = graph[polynomial.variable]
    if variable.dtype.kind != "f":
        return False
    coefficients = [c for c in polynomial.coefficients if c is not None]
    try:
        shape = broadcast_shapes(variable.shape, *(np.shape(c) for c in coefficients))
    except ValueError:
        return False
    dtype = np.result_type(np.zeros((), variable.dtype), *coefficients)
    return shape == node.shape and dtype == node.dtype


def _roots(graph, polynomials):
    """Polynomial values in a variable that something other than arithmetic reads."""
    read_elsewhere = set(graph.outputs)
    for node in graph:
        if node.id not in polynomials:
            read_elsewhere.update(node.inputs)
    return {i for i in read_elsewhere if i in polynomials and graph[i].kind == "op"
            and polynomials[i].variable is not None}


def _consumers(graph):
    """The ids of the nodes that read each node."""
    consumers = {}
    for node in graph:
        for i in node.inputs:
            consumers.setdefault(i, set()).add(node.id)
    return consumers


def _freed_by_rewriting(graph, polynomials, kept, consumers, root):
    """How many arithmetic operations computing ``root`` would no longer be needed if
    its Horner form replaced them: ``root`` itself, and those of its cone whose every
    reader is freed too (others compute values still read elsewhere, so rewriting
    would add to them rather than replace them).  ``kept`` are the roots and outputs,
    which stay whatever happens to ``root``.

    The cone stops at kept values: they stay, and what reaches ``root`` only by way
    of them is read by a value that stays, so is never freed either.  Along a chain
    of values each read elsewhere, each root's cone is then one step, not the chain.
    """
    cone, pending = {root}, [root]
    while pending:
        for i in graph[pending.pop()].inputs:
            if i not in cone and i not in kept and i in polynomials and graph[i].kind == "op":
                cone.add(i)
                pending.append(i)
    freed = {root}
    for node_id in sorted(cone, reverse=True):  # readers first: ids increase along edges
        if node_id not in kept and consumers.get(node_id, set()) <= freed:
            freed.add(node_id)
    return len(freed)


def _is_one(value):
    """A weakly typed 1 (a Python number): multiplying by it changes nothing, dtype
    included."""
    return isinstance(value, (int, float)) and value == 1


_VARIABLE = object()
"""Stands for the polynomial's variable in a Horner layout."""


def _horner(polynomial, add_op=None):
    """Lay out ``polynomial`` in Horner form: with ``add_op(primitive, inputs)`` given (inputs
    being node ids of the new graph, constant values or ``_VARIABLE``), add its nodes
    and return what the last one is; without, return the number of operations."""
    coefficients = polynomial.coefficients
    count = 0
    acc = ("value", coefficients[-1])
    for c in reversed(coefficients[:-1]):
        if acc[0] == "value" and _is_one(acc[1]):
            acc = ("variable", _VARIABLE)
        else:
            count += 1
            # A constant factor reads best after the variable: ``x * 0.5``.
            factors = ((("variable", _VARIABLE), acc) if acc[0] == "value"
                       else (acc, ("variable", _VARIABLE)))
            acc = ("node", add_op and add_op(multiply, factors))
        if c is not None:
            count += 1
            if np.ndim(c) == 0 and c < 0:  # ``x - 0.25`` rather than ``x + -0.25``
                acc = ("node", add_op and add_op(subtract, (acc, ("value", -c))))
            else:
                acc = ("node", add_op and add_op(add, (acc, ("value", c))))
    return acc if add_op else count


def _emit(rewrite, root, polynomial):
    """Add the Horner form of ``root``'s polynomial to the new graph; what computes it
    stands for ``root`` (a new last node takes its name, line and marks)."""
    variable = rewrite.ids[polynomial.variable]

    def new_id(part):
        kind, value = part
        if kind == "variable":
            return variable
        return value if kind == "node" else rewrite.constant(value)

    meta = rewrite.meta_of(root)
    # Marks that name a whole value belong to the last node only.
    steps = {k: v for k, v in meta.items() if k not in WHOLE_VALUE_MARKS}

    def add_op(primitive, parts):
        ids = tuple(new_id(part) for part in parts)
        shape, dtype = abstract_of(rewrite.new, Term(primitive, ids, {}))
        return rewrite.new.add_node("op", primitive, ids, {}, shape, dtype, source=root.source,
                                    meta=steps).id

    kind, last = _horner(polynomial, add_op)
    if kind != "node":
        return new_id((kind, last))
    node = rewrite.new[last]
    rewrite.new.nodes[last] = dataclasses.replace(node, name=root.name, meta=meta)
    return last
