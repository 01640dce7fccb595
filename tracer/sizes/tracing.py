"""How the tracing core meets symbolic sizes: shapes read as ``Dim``s, sizes used as
numbers, and params that hold sizes.

A ``Dim`` used as a number (``loss / x.shape[0]``) becomes a 0-d tensor of
the dtype of the arrays it meets, as the Python int it stands for would be
typed, which each recording keeps as that size: the graph computes it from
the inputs' shapes.  Params that hold dims (a reshape to ``(n, -1)``) are
applied at their values, and kept with their expressions for the graph.
"""

import contextlib

import numpy as np

from ir.loops.body import Body
from ir.loops.twins import sized_twins, twin_of
from ir.sizes.guards import Guarding
from ir.sizes.traced import TracedSize, holds_sizes, map_sizes
from tracer.sizes.declared import Dim, shape_of
from tracer.state import symbolic, thread_state
from tracer.sizes.recorded import trace_of


def symbolic_shape(tensor):
    """``tensor``'s shape, with a ``Dim`` for each symbolic axis it has (declared, or
    inferred by the innermost recording that records it)."""
    concrete = tensor._value.shape
    declared = getattr(tensor, "_dims", None)
    if declared is not None:
        for recording in thread_state.stack:  # (its sizes may reach params, not only args)
            trace = trace_of(recording)
            if tensor._serial not in trace.shapes:
                trace.declare(tensor, declared)
        return shape_of(concrete, declared)
    for recording in reversed(thread_state.stack):
        sizes = trace_of(recording).shape(tensor, recording.records)
        if sizes is not None:
            return shape_of(concrete, sizes)
    return concrete


def size_operands(args, wrap):
    """``args`` with each ``Dim`` a 0-d tensor (made by ``wrap``) that the tapes recording
    keep as its size, typed as a Python int meeting the other arguments would be."""
    dtype = np.result_type(*(np.asarray(getattr(a, "_value", a)).dtype for a in args
                             if a.__class__ is not Dim), 0)
    if _in_a_body():
        return tuple(_fixed(a) if a.__class__ is Dim else a for a in args)
    out = []
    for arg in args:
        if arg.__class__ is Dim:
            tensor = wrap(np.asarray(arg.value, dtype))
            for recording in thread_state.stack:
                trace_of(recording).sizes[tensor._serial] = arg.size
                recording.derived.add(tensor._serial)
            arg = tensor
        out.append(arg)
    return tuple(out)


def concrete_params(params):
    """``(params at the traced sizes, params with sizes as expressions)``; the second is
    ``None`` when no param holds a size.  A loop body with a symbolic twin
    (``ir.loops.twins``) is a param with sizes: its twin is the second's."""
    if not any(holds_sizes(v, TracedSize) or twin_of(v) is not None for v in params.values()):
        return params, None
    if _in_a_body():
        return {k: _at(v, "value", _fixed) for k, v in params.items()}, None
    return ({k: _at(v, "value") for k, v in params.items()},
            {k: twin_of(v) or _at(v, "size") for k, v in params.items()})


@contextlib.contextmanager
def sized_loops(pairs):
    """Within, loops recorded with a body of ``pairs`` (``(concrete body, its symbolic
    twin or None)``), or with one derived of them, keep symbolic sizes in the graphs of
    the recordings around (``ir.loops.twins``), which keep the guards that takes."""
    pairs = [(body, sized) for body, sized in pairs if sized is not None]
    if not pairs:
        yield
        return
    traces = [trace_of(recording) for recording in thread_state.stack]
    sizes = Guarding({name: value for trace in traces
                      for name, value in trace.guarding.hints.items()})
    with sized_twins(pairs, sizes):
        yield
    for trace in traces:
        for guard in sizes.guards:
            trace.guarding.note(guard)


def recorded_twins(recording):
    """``(body, its symbolic twin)`` for each loop body the recording holds with symbolic
    sizes: the loops its pass records (a scan's reverse loop) keep them too."""
    sized = recording.symbolic.params if recording.symbolic is not None else None
    if not sized:
        return []
    return [(body, sized[r.out_id][name]) for r in recording.records if r.out_id in sized
            for name, body in r.params.items() if isinstance(body, Body)]


def default_seed(target, keep_tensors):
    """The default seed of a gradient of ``target``: ones of its shape.  Where outer tapes
    record the pass and ``target`` has symbolic sizes, they are computed from ``target``,
    so their graphs hold at every size."""
    if keep_tensors and symbolic.declared and any(isinstance(d, Dim) for d in target.shape):
        return np.ones_like(target)
    return np.ones(target._value.shape, target._value.dtype)


def declared_among(args):
    """Whether an argument has declared symbolic axes: what is computed from it has sizes
    that follow them, so it is recorded even when no tape watches it."""
    return any(getattr(a, "_dims", None) is not None for a in args)


def note_sized(stack, result, sized, applied=None):
    """Keep ``sized``, the params with sizes, for the record of ``result`` in each
    recording that recorded it; and the params as ``applied``, with ``Dim``s, which its
    derivative rules take so that what they record keeps the sizes symbolic too (not for
    a loop's body, whose rules take its graph)."""
    for recording in stack:
        if recording.records and recording.records[-1].out_id == result._serial:
            trace = trace_of(recording)
            trace.params[result._serial] = sized
            if applied is not None and not any(twin_of(v) is not None
                                               for v in applied.values()):
                trace.dims[result._serial] = applied



def _in_a_body():
    """Whether a loop or branch body is being traced concretely (its graph holds the
    sizes traced), not also symbolically (``SymbolicTrace.follow``)."""
    return any(recording.strict and (recording.symbolic is None
                                     or recording.symbolic.outer is None)
               for recording in thread_state.stack)


def _fixed(dim):
    """``dim``'s value, fixed there with a guard and a warning (see ``Dim.__index__``)."""
    return dim._specialized("a size inside a loop or branch body")


def _at(value, part, fix=None):
    return map_sizes(value, TracedSize, fix or (lambda size: getattr(size, part)))
