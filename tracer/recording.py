"""``Recording``: what one tape has recorded, the state behind a ``GradientTape``.

The tracing core (``tracer.core``) appends to recordings as operations run;
tapes, forward accumulators and loop bodies each own one.
"""

from tracer.core import READERS
from tracer.state import thread_state


class Recording:
    """What one tape has recorded: the state behind a ``GradientTape``."""

    __slots__ = ("tracked", "derived", "records", "watched", "variables", "variable_values",
                 "watch_accessed_variables", "escapes", "decisions", "strict",
                 "symbolic")
    graph_mode = False
    """Whether this records a function traced for graph mode (``tracer.graph_mode``): then
    it reads every variable, trainable or not."""

    def __init__(self, watch_accessed_variables, strict=False):
        self.tracked = set()  # serials of the values gradients flow through
        self.derived = set()  # serials of recorded integer and boolean results
        self.records = []
        self.escapes = []  # an Escape for each conversion of a tracked tensor to plain values
        self.decisions = []  # a Decision for each conversion of a value the tape records
        self.watched = {}
        self.variables = {}
        self.variable_values = {}  # serial of a version read -> (variable, value tensor)
        self.watch_accessed_variables = watch_accessed_variables
        # A loop body's: every conversion to a plain value is noted, truth tests and
        # indexes too, since the body is traced once for every step.
        self.strict = strict
        self.symbolic = None  # a tracer.sizes.recorded.SymbolicTrace, once sizes are symbolic

    def tracks_variable(self, variable):
        return variable._serial in self.variables or (
            self.watch_accessed_variables and (variable.trainable or self.graph_mode))

    def ids_of(self, source):
        """The serials whose gradients add up to ``source``'s: a variable has one per
        version of it read on this recording, and its current one."""
        if source.__class__ not in READERS:
            return [source._serial]
        ids = [s for s, (v, _) in self.variable_values.items() if v is source]
        current = source._value._serial
        return ids if current in ids else ids + [current]


def graph_recording():
    """The recording of the function being traced for graph mode on this thread, if any."""
    for recording in thread_state.stack:
        if recording.graph_mode:
            return recording
    return None
