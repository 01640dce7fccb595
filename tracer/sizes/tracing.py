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

from ir.sizes.traced import TracedSize, holds_sizes, map_sizes
from tracer.sizes.declared import Dim, shape_of
from tracer.state import thread_state
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
    ``None`` when no param holds a size.  A loop body traced symbolically too
    (``sized_bodies``) is a param with sizes: its symbolic graph is the second's."""
    twins = thread_state.__dict__.get("sized_bodies") or {}
    if not any(holds_sizes(v, TracedSize) or id(v) in twins for v in params.values()):
        return params, None
    if _in_a_body():
        return {k: _at(v, "value", _fixed) for k, v in params.items()}, None
    return ({k: _at(v, "value") for k, v in params.items()},
            {k: twins.get(id(v)) or _at(v, "size") for k, v in params.items()})


@contextlib.contextmanager
def sized_bodies(pairs):
    """Within, applying a primitive whose params hold a body of ``pairs`` (``(concrete
    body, its graph with symbolic sizes)``) records the symbolic one for graphs."""
    previous = thread_state.__dict__.get("sized_bodies")
    thread_state.sized_bodies = {**(previous or {}),
                                 **{id(body): sized for body, sized in pairs if sized is not None}}
    try:
        yield
    finally:
        thread_state.sized_bodies = previous


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
            if applied is not None and not any(
                    id(v) in (thread_state.__dict__.get("sized_bodies") or {})
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
