"""The body of a loop: a graph traced once, from one step's values to the next's.

A body's inputs are, in order, the carries, one slice of each scanned input
(``xs``) and the loop-invariant values it closes over; its outputs are the
new carries, then the step's outputs (``ys``).  A loop node holds its body in
its params, as a jaxpr equation holds a closed sub-jaxpr.
"""

import functools
import re
from typing import NamedTuple, Sequence

import numpy as np

from ir.canonical import canonical
from ir.loops.twins import derived_twin, note_twin, twin_of
from ir.symbolic import is_weak_constant


class InputGroups(NamedTuple):
    """Something per input of a body (node ids, a loop's arguments, positions), by role."""
    carries: Sequence
    xs: Sequence
    invariants: Sequence


class ResultGroups(NamedTuple):
    """Something per output of a body or result of its loop, by role: the (new or final)
    carries, the step's outputs (stacked, for a loop), then anything after them (a
    scan's kept values)."""
    carries: Sequence
    ys: Sequence
    kept: Sequence


class Body:
    """A loop body: ``graph`` with its ``inputs`` (node ids: the ``carries``, the ``xs``
    slices, the ``invariants``) and ``graph.outputs`` (the ``new_carries``: the carries'
    values after a step, then the ``ys``: the step's outputs, which a scan stacks).

    Each group is a tuple of node ids; ``split_inputs`` and ``split_results`` cut
    anything aligned with the inputs or the results into the same groups, so that no
    caller counts positions.
    """

    __slots__ = ("graph", "inputs", "carries", "xs", "invariants", "new_carries", "ys",
                 "_programs", "_derived")

    def __init__(self, graph, inputs, carries=0, xs=0):
        """The first ``carries`` of ``inputs`` are carries, the next ``xs`` slices of the
        scanned inputs, the rest invariants (counts, as the JSON form stores them)."""
        for i in inputs:
            if graph[i].kind != "input":
                raise ValueError(f"a loop body's inputs are input nodes, not {graph[i].kind}")
        if len(graph.outputs) < carries or None in graph.outputs:
            raise ValueError("a loop body gives every carry and output a node")
        self.graph = graph
        self.inputs = tuple(inputs)
        self.carries = self.inputs[:carries]
        self.xs = self.inputs[carries:carries + xs]
        self.invariants = self.inputs[carries + xs:]
        new_carries, ys = split_like(graph.outputs, self.carries)
        self.new_carries, self.ys = tuple(new_carries), tuple(ys)
        self._programs = {}
        self._derived = {}

    @classmethod
    def of(cls, graph, carries=(), xs=(), invariants=()):
        """The body of ``graph`` whose inputs are these groups of node ids."""
        return cls(graph, [*carries, *xs, *invariants], len(carries), len(xs))

    def split_inputs(self, values):
        """``values``, one per input of this body (or argument of its loop), by role."""
        return InputGroups(*split_like(values, self.carries, self.xs))

    def split_results(self, values):
        """``values``, one per output of this body (or result of its loop), by role."""
        return ResultGroups(*split_like(values, self.new_carries, self.ys))

    @property
    def positions(self):
        """The positions of each group among the inputs (ranges)."""
        return InputGroups(*positions_like(self.carries, self.xs, self.invariants))

    def split_positions(self, positions):
        """The input positions ``positions`` by role, each as positions within its group."""
        return InputGroups(*({k for k, p in enumerate(group) if p in positions}
                        for group in self.positions))

    def result_positions(self, kept=()):
        """The positions of each group among the results of this body's scan, which
        stacks the per-step values of the nodes ``kept`` after its outputs."""
        return self.split_results(range(len(self.graph.outputs) + len(kept)))

    def types(self, ids):
        """``(shape, dtype)`` of the nodes ``ids``."""
        return [(self.graph[i].shape, self.graph[i].dtype) for i in ids]

    @property
    def carry_types(self):
        return self.types(self.carries)

    @property
    def y_types(self):
        return self.types(self.ys)

    def scan(self, args, length, reverse, kept=()):
        """A whole scan on plain arrays: its final carries, stacked outputs and stacked
        values of the nodes ``kept``.  One compiled function runs every step, so a step
        costs its numpy calls and the writes of its outputs, no more."""
        key = ("scan", reverse, kept)
        loop = self._programs.get(key)
        if loop is None:
            loop = self._programs[key] = _scan_function(self, kept, reverse)
        return loop(length, *args)

    def run(self, inputs, kept=()):
        """The outputs of one step on ``inputs`` (one value per input, plain arrays), then
        the values of the nodes ``kept``."""
        step = self._programs.get(kept)
        if step is None:
            step = self._programs[kept] = _step_function(self.graph, self.inputs, kept)
        return step(*inputs)

    def with_outputs(self, extra):
        """This body with the nodes ``extra`` as further outputs: a scan's kept values are
        outputs like its ``ys`` to whatever differentiates it."""
        def make(body):
            graph = body.graph.copy()
            graph.outputs = [*graph.outputs, *extra]
            return Body.of(graph, body.carries, body.xs, body.invariants)
        return self.derived(("with outputs", tuple(extra)), make) if extra else self

    @classmethod
    def interned(cls, graph, inputs, carries, xs):
        """The body of this structure traced before (with everything made of it: compiled
        steps, reverse and tangent steps), else a new one: tracing the same loop again,
        call after call, costs no new derivative."""
        key = _structure(graph, inputs, carries, xs)
        body = _INTERNED.pop(key, None)
        if body is None:
            body = cls(graph, inputs, carries, xs)
        _INTERNED[key] = body
        while len(_INTERNED) > INTERNED_BODIES:
            del _INTERNED[next(iter(_INTERNED))]
        return body

    def canonical_key(self):
        """Bodies are equal only to themselves (``ir.canonical``): those of one structure
        are one object when interned."""
        return "body", id(self)

    def derived(self, key, make):
        """What ``make(self)`` gives, made once per body (its adjoint, for example); the
        ``DERIVED_PER_BODY`` used last are kept (a loop run at many lengths makes many)."""
        value = self._derived.pop(key, None)
        if value is None:
            value = make(self)
        self._derived[key] = value
        if len(self._derived) > DERIVED_PER_BODY:
            del self._derived[next(iter(self._derived))]
        twin = twin_of(self)
        if twin is not None:
            _pair_twins(value, derived_twin(twin, key, make))
        return value

    def __repr__(self):
        return (f"<loop body: {len(self.carries)} carries, {len(self.xs)} xs, "
                f"{len(self.invariants)} invariants, {len(self.graph)} nodes>")


def _pair_twins(concrete, sized, depth=0):
    """Pair the bodies at the same places in ``concrete`` and ``sized``, one thing derived
    of a body and of its symbolic twin (``ir.loops.twins``): themselves, the items of
    tuples and lists, the attributes of other objects (a reverse step's body)."""
    if type(concrete) is not type(sized) or depth > 2:
        return
    if isinstance(concrete, Body):
        note_twin(concrete, sized)
    elif isinstance(concrete, (tuple, list)) and len(concrete) == len(sized):
        for a, b in zip(concrete, sized):
            _pair_twins(a, b, depth + 1)
    elif hasattr(concrete, "__dict__"):
        for name, value in vars(concrete).items():
            _pair_twins(value, getattr(sized, name, None), depth + 1)


_OPERATOR = re.compile(r"(\{0\} (\+|-|\*|/|//|%|\*\*|@|&|\||\^|==|!=|<|<=|>|>=) \{1\}"
                       r"|-\{0\}|~\{0\}|\{0\})")
"""Spellings that are Python operators on the arguments."""


def _call(graph, node, namespace):
    """The source of one op: its spelling where that is a Python operator (as fast as
    numpy gets on scalars), else a call of its implementation bound in ``namespace``."""
    prim = node.primitive
    args = [f"v{i}" for i in node.inputs]
    if prim.elementwise and not node.params and isinstance(prim.source, str) \
            and _OPERATOR.fullmatch(prim.source) \
            and not all(is_weak_constant(graph[i]) for i in node.inputs):
        return prim.source.format(*args)
    namespace[f"f{node.id}"] = (functools.partial(prim.impl, **node.params) if node.params
                                else prim.impl)
    return f"f{node.id}({', '.join(args)})"


def split_like(values, *groups):
    """``values`` cut into consecutive pieces as long as each of ``groups``, then the rest:
    a sequence made of several groups, split back into them."""
    pieces, start = [], 0
    for group in groups:
        pieces.append(values[start:start + len(group)])
        start += len(group)
    return [*pieces, values[start:]]


def positions_like(*groups):
    """The positions of each of ``groups`` in the sequence made of them, in order."""
    return split_like(range(sum(map(len, groups))), *groups)[:-1]


DERIVED_PER_BODY = 64
"""How many things made of one body (reverse steps, compiled loops, ...) it keeps."""

INTERNED_BODIES = 256
"""How many traced bodies are remembered for reuse, the least recently used dropped."""

_INTERNED = {}


def _structure(graph, inputs, carries, xs):
    """Everything about a body that what is made of it depends on: its nodes (with their
    names and lines, which generated code shows), inputs and outputs."""
    nodes = tuple((n.kind, n.op, n.inputs, canonical(n.params), n.shape, n.dtype.str,
                   n.name, n.source, canonical(n.value) if n.kind == "constant" else None)
                  for n in graph)
    return nodes, tuple(inputs), tuple(graph.outputs), carries, xs


def _op_lines(graph, namespace, indent):
    """The statements computing ``graph``'s ops, each node's value named ``v<id>``; its
    constants and the implementations called go into ``namespace``."""
    lines = []
    for node in graph:
        if node.kind == "constant":
            namespace[f"v{node.id}"] = node.value
        elif node.kind == "op":
            lines.append(f"{indent}v{node.id} = {_call(graph, node, namespace)}")
    return lines


def _step_function(graph, inputs, kept):
    """One step of ``graph`` as a Python function of its inputs, returning its outputs and
    the values of the nodes ``kept``: one call per op, each op's numpy implementation
    with its params bound, so a step costs what the same numpy calls written out do.

    The function's source holds nothing but names made here; every value it uses
    (implementations, constants) is bound in its namespace.
    """
    namespace = {}
    lines = _op_lines(graph, namespace, "    ")
    outputs = ", ".join(f"v{i}" for i in graph.outputs)
    values = ", ".join(f"v{i}" for i in kept)
    source = (f"def step({', '.join(f'v{i}' for i in inputs)}):\n" + "\n".join(lines)
              + f"\n    return [{outputs}], [{values}]\n")
    exec(compile(source, "<loop body step>", "exec"), namespace)
    return namespace["step"]


def _scan_function(body, kept, reverse):
    """``scan(length, *args)`` for ``body``, written out as a ``for`` loop over its steps
    (see ``_step_function``: the source holds only names made here)."""
    graph, carries, xs = body.graph, body.carries, body.xs
    namespace = {"np": np}
    lines = _op_lines(graph, namespace, "        ")
    # A value stacked twice (kept for the gradient and an output too) is stacked once.
    stacks = list(dict.fromkeys([*body.ys, *kept]))
    for k, i in enumerate(stacks):
        namespace[f"shape{k}"], namespace[f"dtype{k}"] = graph[i].shape, graph[i].dtype
    head = [f"def scan(length, {', '.join(f'v{i}' for i in body.inputs)}):"]
    head += [f"    xs{k} = v{i}" for k, i in enumerate(xs)]
    head += [f"    s{k} = np.empty((length, *shape{k}), dtype{k})" for k in range(len(stacks))]
    steps = "range(length - 1, -1, -1)" if reverse else "range(length)"
    head.append(f"    for t in {steps}:")
    head += [f"        v{i} = xs{k}[t]" for k, i in enumerate(xs)]
    tail = [f"        s{k}[t] = v{i}" for k, i in enumerate(stacks)]
    if carries:
        tail.append(f"        {', '.join(f'v{i}' for i in carries)} = "
                    f"{', '.join(f'v{i}' for i in body.new_carries)}")
    stacked = ", ".join(f"s{stacks.index(i)}" for i in [*body.ys, *kept])
    result = f"    return [{', '.join(f'v{i}' for i in carries)}], [{stacked}]"
    source = "\n".join(head + lines + tail + [result]) + "\n"
    exec(compile(source, "<loop body scan>", "exec"), namespace)
    return namespace["scan"]
