"""``tracer.print``: TensorFlow's ``tf.print``, a print that a traced function keeps.

Python's ``print`` in a function traced for graph mode runs once, while tracing,
as TensorFlow's does.  ``tracer.print`` runs at every call: traced, it is a node
of the graph (``ir.primitives.control.printed``), which generated code writes as
a ``print`` statement where the function called it.  Anywhere else it prints at
once.
"""

import builtins

import numpy as np

from ir.primitives.control import printed
from tracer.core import OpRecord, is_traced, read, value_of, wrap
from tracer.recording import graph_recording
from tracer.sites import user_site
from tracer.state import serials

_LITERALS = (bool, int, float, complex, str, bytes, type(None))


def print(*values, sep=" ", end="\n"):
    """Print ``values`` (tensors as their arrays) now, or, in a function traced for graph
    mode, at every call of it."""
    recording = graph_recording()
    if recording is None:
        builtins.print(*[np.asarray(value_of(v)) if is_traced(v) else v for v in values],
                       sep=sep, end=end)
        return
    if not all(isinstance(s, str) for s in (sep, end)):
        raise TypeError("tracer.print: sep and end must be strings")
    tensors, parts = [], []
    for value in values:
        if is_traced(value) or isinstance(value, np.ndarray):
            tensors.append(read(value) if is_traced(value) else wrap(np.array(value)))
            parts.append(None)
        elif isinstance(value, _LITERALS) or isinstance(value, np.generic):
            parts.append(value.item() if isinstance(value, np.generic) else value)
        else:
            parts.append(str(value))
    params = {"parts": tuple(parts), "sep": sep, "end": end, "order": next(serials)}
    token = wrap(np.zeros((), np.bool_))
    in_ids = tuple(t._serial if t._serial in recording.tracked else None for t in tensors)
    recording.records.append(OpRecord(printed, tuple(tensors), params, token, in_ids,
                                      user_site()))
