"""Symbolic values: applying a primitive to them adds a node to a graph.

This is how ``ir`` builds graphs from the same derivative rules that
evaluate eagerly.
"""

import numpy as np

from ir.sizes.dims import Size
from ir.operators import ArrayOperators
from ir.primitive import SYMBOLIC_PRIORITY, register_value_kind
from ir.primitives import sizes
from ir.primitives.broadcast import broadcast_to


PYTHON_SCALARS = (int, float, complex, bool)


def is_weak_constant(node):
    """A constant held as a Python number, which numpy types weakly (``float32 / 2`` is
    float32): passes and the emitter keep it a Python number."""
    return node.kind == "constant" and isinstance(node.value, PYTHON_SCALARS)


class Symbol(ArrayOperators):
    """A node's value, standing in for an array in derivative rules."""

    __slots__ = ("builder", "id", "shape", "dtype")
    __array_ufunc__ = None  # let numpy arrays defer to our reflected operators

    def __init__(self, builder, node_id, shape, dtype):
        self.builder = builder
        self.id = node_id
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"<Symbol %{self.id} {self.dtype}{list(self.shape)}>"


class GraphBuilder:
    """Extends a copy of a graph with nodes made by applying primitives to symbols."""

    def __init__(self, graph):
        self.graph = graph.copy()
        self._forward_ids = frozenset(graph.nodes)
        self.adjoint_of = None
        self.jvp_of = None
        self._symbols = {}

    def symbol(self, node_id):
        symbol = self._symbols.get(node_id)
        if symbol is None:
            node = self.graph[node_id]
            symbol = Symbol(self, node_id, node.shape, node.dtype)
            self._symbols[node_id] = symbol
        return symbol

    def operand(self, node_id):
        """What a rule sees for a node: its symbol, or a Python scalar constant itself
        (so numpy keeps typing it weakly, as in the recorded computation)."""
        node = self.graph[node_id]
        if is_weak_constant(node):
            return node.value
        return self.symbol(node_id)

    def input(self, shape, dtype, name, meta=None):
        """A new input node: a value the graph's caller supplies."""
        node = self.graph.add_node("input", "input", (), {}, shape, dtype, name=name, meta=meta)
        return self.symbol(node.id)

    def mark_cotangent(self, value, node_id):
        """Note that ``value`` is the whole cotangent of node ``node_id`` (for naming it)."""
        if isinstance(value, Symbol):
            node = self.graph[value.id]
            if node.kind != "constant" and node.id not in self._forward_ids:
                node.meta.setdefault("cotangent_of", node_id)

    def constant(self, value):
        """A constant node; a Python scalar stays one, so numpy keeps treating it as weakly
        typed (``float32 / 2`` is float32, ``float32 / np.asarray(2)`` is float64)."""
        if not isinstance(value, PYTHON_SCALARS):
            value = np.asarray(value)
        node = self.graph.add_node("constant", "constant", (), {}, np.shape(value),
                                   np.result_type(value), value=value, meta=self._meta())
        return self.symbol(node.id)

    def zeros(self, shape, dtype):
        """Zeros of ``shape``: a scalar constant broadcast, so they fold into what they meet."""
        zero = self.constant(np.zeros((), dtype))
        return broadcast_to(zero, shape=tuple(shape)) if shape else zero

    def size(self, size, dtype):
        """A symbolic size as a number of ``dtype`` (``ir.primitives.sizes``): a rule's
        count over an axis whose size only the caller's arrays tell."""
        node = self.graph.add_node("op", sizes.size, (),
                                   {"size": size, "dtype": np.dtype(dtype)}, (), dtype,
                                   meta=self._meta())
        return self.symbol(node.id)

    def as_symbol(self, value):
        return value if isinstance(value, Symbol) else self.constant(value)

    def apply(self, prim, args, params):
        ids = []
        avals = []
        if any(isinstance(arg, Size) for arg in args):
            args = self._sizes_as_symbols(args)
        for arg in args:
            if isinstance(arg, Symbol):
                ids.append(arg.id)
                avals.append((arg.shape, arg.dtype))
            else:
                ids.append(self.constant(arg).id)
                avals.append(arg if isinstance(arg, PYTHON_SCALARS)
                             else (np.shape(arg), np.result_type(arg)))
        shape, dtype = prim.abstract(avals, params)
        node = self.graph.add_node("op", prim, ids, params, shape, dtype, meta=self._meta())
        return self.symbol(node.id)

    def _sizes_as_symbols(self, args):
        """``args`` with each symbolic size a ``size`` node typed as the arrays it meets,
        as the Python int it stands for would be."""
        dtype = np.result_type(*(a.dtype for a in args if isinstance(a, Symbol)), 0)
        return [self.size(a, dtype) if isinstance(a, Size) else a for a in args]

    def _meta(self):
        """What a new node records of the rule that made it: the node it differentiates
        (``adjoint_of``) or whose Jacobian-vector product it helps compute (``jvp_of``)."""
        meta = {}
        if self.adjoint_of is not None:
            meta["adjoint_of"] = self.adjoint_of
        if self.jvp_of is not None:
            meta["jvp_of"] = self.jvp_of
        return meta


def _bind_symbolic(prim, args, params):
    builder = next(a.builder for a in args if isinstance(a, Symbol))
    return builder.apply(prim, args, params)


register_value_kind(Symbol, _bind_symbolic, priority=SYMBOLIC_PRIORITY)
