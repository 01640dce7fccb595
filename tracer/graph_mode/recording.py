"""``GraphRecording``: what tracing a function for graph mode records.

A tape records what depends on the values it watches; a function traced for
graph mode must record everything its generated code recomputes at each call:
every operation on its arguments and on every variable it reads, trainable or
not, integer results included.  An assignment keeps the value assigned as a
value of the trace (reads after it see it, as TensorFlow's automatic control
dependencies order them) and notes the value from before, put back when the
trace ends: tracing runs the function, but must not change its variables.
"""

import numpy as np

from tracer.core import Tensor, concrete_shape, read, wrap
from tracer.errors import ControlFlowError
from tracer.numpy.api import stop_gradient
from tracer.recording import Recording
from tracer.sites import described_site
from tracer.state import serials


class _Refusals(list):
    """A traced function's escapes: turning a value of the trace into a plain value would
    fix the first call's answer for every call, so it is an error."""

    __slots__ = ("function_name",)

    def __init__(self, function_name):
        super().__init__()
        self.function_name = function_name

    def append(self, escape):
        what = ("Python control flow on a tensor's value" if escape.how == "bool(t)"
                else f"{escape.how}, a conversion of a traced value to a plain one,")
        raise ControlFlowError(
            f"{what}{described_site(escape.site)} in {self.function_name}, which "
            "tracer.function traces once and then runs as generated code: the first call's "
            "answer would be used at every call. Keep the value a tensor: tracer.cond (or "
            "np.where) for a choice, tracer.while_loop for a loop until a condition, "
            "tracer.scan or tracer.fori_loop for a loop over steps; tracer.print to print "
            "a value at every call.")


class GraphRecording(Recording):
    """The recording of one function being traced (see the module docstring).

    ``assigned`` maps each variable assigned to ``(variable, its value before the
    trace assigned it)``; ``created`` lists the variables made while tracing.
    """

    __slots__ = ("first", "assigned", "created")
    graph_mode = True

    def __init__(self, function_name):
        super().__init__(watch_accessed_variables=True)
        self.first = next(serials)
        self.escapes = _Refusals(function_name)
        # One set: integer results (an index, a step count) are the trace's values too.
        self.tracked = self.derived = set()
        self.assigned = {}
        self.created = []

    def watch_argument(self, tensor):
        """Make ``tensor`` (a placeholder for an argument) a leaf of the trace."""
        self.watched[tensor._serial] = tensor
        self.tracked.add(tensor._serial)

    def assign(self, variable, value):
        """``variable.assign(value)`` while tracing: the value becomes the variable's, as a
        value of the trace.  Tapes see a new version of the variable, as in eager mode:
        no gradient flows back through an assignment."""
        value = read(value)
        if not isinstance(value, Tensor):
            value = wrap(np.array(value, dtype=variable.dtype))
        shape = variable._value._value.shape
        if concrete_shape(value) != shape:
            raise ValueError(f"cannot assign a value of shape {concrete_shape(value)} to "
                             f"variable {variable.name or ''} of shape {shape}")
        if value.dtype != variable.dtype:
            value = value.astype(variable.dtype)
        if value._serial in self.tracked:
            value = stop_gradient(value)
            value.name = variable.name
        self.assigned.setdefault(variable._serial, (variable, variable._value))
        variable._value = value

    def restore(self):
        """Give every variable assigned while tracing its value from before."""
        for variable, before in self.assigned.values():
            variable._value = before
