"""Tracing a loop body once, into a graph of its own.

The body runs once on stand-ins for one step's values (placeholders), with a
recording of its own in place of the tapes: it records every operation that
depends on a placeholder or on a tensor the body closes over.  Closed-over
tensors and variables become the loop's invariant inputs, so gradients reach
them; plain arrays and Python numbers stay constants of the body.

A body that turns a step's value into a Python value (``float(c)``,
``if c > 0:``) would fix step 0's answer for every step, so that is an error
here, not the warning it is on a tape.
"""

import numpy as np

from ir.loops.body import Body
from tracer.core import Tensor, value_of, wrap
from tracer.errors import ControlFlowError
from tracer.recorded_graph import build_graph
from tracer.recording import Recording
from tracer.sites import described_site
from tracer.state import serials, thread_state
from tracer.sizes.recorded import trace_of


class _Closure(set):
    """The serials a body recording tracks: its own, and any tensor the body closes over
    (every tensor made before the body ran is an input of the loop, not a constant)."""

    __slots__ = ("first",)

    def __init__(self, first):
        super().__init__()
        self.first = first

    def __contains__(self, serial):
        return serial < self.first or set.__contains__(self, serial)


class _Refusals(list):
    """A body recording's escapes: one of a value computed from a step's values is an
    error (see the module docstring); closed-over values may leave, being the same at
    every step."""

    __slots__ = ("first",)

    def __init__(self, first):
        super().__init__()
        self.first = first

    def append(self, escape):
        if escape.tensor._serial < self.first:
            return
        raise ControlFlowError(
            f"{escape.how} in a loop body{described_site(escape.site)} turns one step's value "
            "into a plain value, but the body is traced once and runs for every step, so "
            "step 0's answer would be used at every step. Keep the value a tensor: use "
            "np.where or tracer.cond for a choice, tracer.while_loop for a data-dependent "
            "number of steps, and index a plain array with a step's value through a tensor "
            "(tracer.constant(array)[i])")


def trace_body(function, carries, xs, names=("carry", "x")):
    """``function`` run once on placeholders for ``carries`` and ``xs`` (lists of leaf
    values; a leaf of ``xs`` is one step's slice), recorded as a ``Body``.

    ``function(placeholders)`` returns the body's output leaves and anything else,
    which is passed on.  Returns the body, the invariant arguments (closed-over
    tensors and variables, in the order of the body's invariant inputs), and that
    anything else.
    """
    body, _, invariants, returned = trace_sized_body(function, carries, xs, names)
    return body, invariants, returned


def trace_sized_body(function, carries, xs, names=("carry", "x"), shapes=None):
    """``trace_body``, which also gives the body's graph with symbolic sizes when the
    placeholders' ``shapes`` (one per placeholder, ``None`` for a concrete one) or the
    tensors it closes over have symbolic sizes: ``(body, sized body or None,
    invariants, anything else)``.  Sizes inside such a body stay symbolic; in a body
    traced concretely, a size met is fixed with a guard."""
    recording = Recording(watch_accessed_variables=True, strict=True)
    first = next(serials)
    placeholders = [wrap(np.array(v), name=names[0]) for v in carries] + [
        wrap(np.array(v), name=names[1]) for v in xs]
    if shapes is not None:
        around = [trace_of(r) for r in thread_state.stack]
        for trace, outer in zip(around, thread_state.stack):
            trace.update(outer.records)
        trace_of(recording).follow(
            around, {p._serial: s for p, s in zip(placeholders, shapes) if s is not None})
    recording.escapes = _Refusals(first)
    # One set for tracked and derived values: a body's integers (a loop index) must
    # not leave it either.
    recording.tracked = recording.derived = _Closure(first)
    for p in placeholders:
        recording.watched[p._serial] = p
        recording.tracked.add(p._serial)
    saved = thread_state.stack, thread_state.accumulators
    thread_state.stack, thread_state.accumulators = [recording], []
    try:
        leaves, returned = function(placeholders)
    finally:
        thread_state.stack, thread_state.accumulators = saved
    body, invariants = _body_graph(recording, placeholders, leaves, len(carries), len(xs))
    sized = None
    if shapes is not None and recording.symbolic.guarding.hints:
        sized, _ = _body_graph(recording, placeholders, leaves, len(carries), len(xs),
                               symbolic=True)
    _pass_on_guards(recording, saved[0])  # (after the sized graph, whose shapes take some)
    return body, sized, invariants, returned


def _pass_on_guards(recording, outer):
    """The guards taken while a body was traced (a size fixed inside it) hold for what
    the recordings around it record."""
    if recording.symbolic is not None:
        for guard in recording.symbolic.guarding.guards:
            for around in outer:
                trace_of(around).guarding.note(guard)


def _body_graph(recording, placeholders, leaves, count_c, count_x, symbolic=False):
    """The body's graph: placeholders (``count_c`` carries, ``count_x`` slices of ``xs``),
    then invariants, as inputs; ``leaves`` as outputs; with ``symbolic``, its shapes hold
    the symbolic sizes its recording knows."""
    graph, node_of = build_graph(recording, symbolic=symbolic)
    closed = _closed_over(recording, graph, node_of, placeholders)
    invariant_ids = [node_id for node_id, _ in closed]
    for node_id in invariant_ids:
        node = graph[node_id]
        node.kind, node.op, node.value = "input", "input", None
        node.meta.pop("variable", None)
    invariants = [value for _, value in closed]
    first = recording.tracked.first
    outputs = []
    for leaf in leaves:
        node_id = node_of.get(leaf._serial) if leaf.__class__ is Tensor else None
        if node_id is None:
            value = value_of(leaf)
            kind = "input" if leaf.__class__ is Tensor and leaf._serial < first else "constant"
            shape = recording.symbolic.shape_of(leaf._serial) if (
                symbolic and leaf.__class__ is Tensor) else None
            node_id = graph.add_node(kind, kind, (), {}, shape or np.shape(value),
                                     np.result_type(value),
                                     value=None if kind == "input" else value).id
            if kind == "input":
                node_of[leaf._serial] = node_id
                invariant_ids.append(node_id)
                invariants.append(leaf)
        outputs.append(node_id)
    graph.outputs = outputs
    inputs = [node_of[p._serial] for p in placeholders] + invariant_ids
    body = Body.interned(graph, inputs, carries=count_c, xs=count_x)
    return body, invariants


def _closed_over(recording, graph, node_of, placeholders):
    """``(node id, argument)`` of each tensor or variable the body closes over (a size
    used as a number inside it is the body's own)."""
    mine = {p._serial for p in placeholders}
    if recording.symbolic is not None:
        mine |= set(recording.symbolic.sizes)
    by_serial = {}
    for record in recording.records:
        for arg in record.args:
            if arg.__class__ is Tensor and arg._serial not in mine:
                by_serial.setdefault(arg._serial, arg)
    for serial, (variable, _) in recording.variable_values.items():
        by_serial[serial] = variable
    produced = {record.out_id for record in recording.records}
    closed = []
    for serial, value in by_serial.items():
        node_id = node_of.get(serial)
        if node_id is not None and serial not in produced and graph[node_id].kind != "input":
            closed.append((node_id, value))
    closed.sort()
    return closed

