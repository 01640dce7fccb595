"""``Variable``: mutable state with a stable identity, read by tapes like TensorFlow's.

Each assignment makes a new immutable value tensor (a new version); reading
the variable while a tape records watches it (if trainable and the tape
watches accessed variables) and marks the current version as one of its
values.  Its gradient is the sum over every version read on the tape, so
reads before and after an ``assign`` both count; the assigned value's own
history is cut.
"""

import itertools

import numpy as np

from ir.operators import ArrayOperators
from ir.primitive import is_trainable
from tracer.core import (ARRAY_PRIORITY, Tensor, apply, register_readable, tracked_by_a_tape,
                         value_of, wrap)
from tracer.sizes.declared import declare
from tracer.diagnostics.escapes import ASSIGNMENT, note_escape
from tracer.recording import graph_recording
from tracer.state import accumulator_stack, active_recordings, custom_forwards
from tracer.numpy.methods import ArrayMethods

_creation_order = itertools.count(1)


class Variable(ArrayOperators, ArrayMethods):
    """A named, assignable array; trainable variables are watched automatically by tapes."""

    __slots__ = ("_tensor", "_pending", "_serial", "name", "trainable", "__weakref__")
    __array_priority__ = ARRAY_PRIORITY

    def __init__(self, value, trainable=True, name=None, dtype=None, dims=None):
        """``dims``: one entry per axis, a name for a symbolic axis (``"batch"``), ``None``
        for a static one, as for ``tracer.constant``."""
        self._serial = next(_creation_order)
        self._pending = None
        tracing = graph_recording()
        if tracing is not None:
            tracing.created.append(self)
        self.name = name
        self.trainable = bool(trainable)
        self._value = Tensor(value, dtype=dtype, name=name)
        if dims is not None:
            declare(self._value, dims)

    @property
    def _value(self):
        """The current value tensor.  A value a compiled step wrote back becomes a tensor
        here, when first read: a numpy array (``_write_back``), or a value left on its
        device (``tracer.graph_mode.jit``), made a numpy array first."""
        pending = self._pending
        if pending is not None:
            self._pending = None
            self._tensor = (wrap(pending, self.name) if pending.__class__ is np.ndarray
                            else pending.materialized())
        return self._tensor

    @_value.setter
    def _value(self, tensor):
        self._pending = None
        self._tensor = tensor

    def _write_back(self, array):
        """Make numpy ``array`` the value, as a compiled step writes back at every call:
        most values are read next by the next call's module alone, which takes the array
        (``_current_array``), so the tensor is made only when something else reads it."""
        self._pending = array

    def _current_array(self):
        """The current value as a numpy array, a value written back taken as it is."""
        pending = self._pending
        if pending is None:
            return self._tensor._value
        if pending.__class__ is np.ndarray:
            return pending
        return self._value._value

    # Python's protocols work as on tensors (numpy's are installed by
    # ``tracer.numpy.hooks``); arguments that are variables are read by ``apply``.
    _apply = staticmethod(apply)
    __iter__ = Tensor.__iter__
    __index__ = Tensor.__index__
    __array__ = Tensor.__array__

    def _read(self):
        """The current value tensor, watched by every recording tape that watches this variable."""
        value = self._value
        for forward in custom_forwards():
            forward.variables[self._serial] = self
        for recording in active_recordings():
            if self._serial not in recording.variables:
                if not (recording.watch_accessed_variables
                        and (self.trainable or recording.graph_mode)):
                    continue
                recording.variables[self._serial] = self
            mark_read(recording, self, value)
        for accumulator in accumulator_stack():
            accumulator.read_variable(self, value)
        return value

    def __setitem__(self, key, value):
        raise TypeError(
            "tracer.Variable does not support item assignment: a variable changes only as a "
            "whole. Assign the new value instead, e.g. v.assign(np.where(mask, new, v))")

    def read_value(self):
        """The current value as a tensor (recorded reads count towards the gradient)."""
        return self._read()

    value = read_value

    def assign(self, value):
        """Replace the value (same shape and dtype). Not differentiable.

        A value a tape records leaves the trace here; the tape notes where, so
        ``tape.explain`` can name this line.  In a function traced for graph mode
        (``tracer.function``) the assignment is part of the trace.
        """
        tracing = graph_recording()
        if tracing is not None:
            tracing.assign(self, value)
            return self
        if isinstance(value, Tensor) and tracked_by_a_tape((value,)):
            note_escape(value, ASSIGNMENT, self)
        array = np.asarray(value_of(value))
        current = self._value
        if array.shape != current._value.shape:
            raise ValueError(f"cannot assign a value of shape {array.shape} to variable "
                             f"{self.name or ''} of shape {current._value.shape}")
        self._value = wrap(array.astype(self.dtype, copy=True), name=self.name)
        dims = getattr(current, "_dims", None)
        if dims is not None:
            self._value._dims = dims
        return self

    def assign_add(self, delta):
        """``self += delta``, in place of the variable's identity. Not differentiable."""
        if graph_recording() is not None:
            return self.assign(self._read() + delta)
        return self.assign(self._value._value + np.asarray(value_of(delta)))

    def assign_sub(self, delta):
        """``self -= delta``, in place of the variable's identity. Not differentiable."""
        if graph_recording() is not None:
            return self.assign(self._read() - delta)
        return self.assign(self._value._value - np.asarray(value_of(delta)))

    def numpy(self):
        """The current value as a read-only numpy array.

        Like every conversion to plain values below, this reads the variable:
        inside a tape the read is watched and the conversion noted, so a
        gradient cut by ``math.exp(v)`` can say where (``tape.explain``).
        """
        return self._read().numpy()

    @property
    def shape(self):
        return self._value.shape

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def ndim(self):
        return self._value.ndim

    def __len__(self):
        return len(self._value)

    @property
    def size(self):
        return self._value.size

    def __float__(self):
        return float(self._read())

    def __int__(self):
        return int(self._read())

    def __complex__(self):
        return complex(self._read())

    def item(self, *args):
        return self._read().item(*args)

    def tolist(self):
        return self._read().tolist()

    def __bool__(self):
        return bool(self._value)

    def __repr__(self):
        name = f" {self.name!r}" if self.name else ""
        return (f"<tracer.Variable{name} shape={self.shape} dtype={self.dtype.name} "
                f"numpy={self._value._value!r}>")


def mark_read(recording, variable, value):
    """Record on ``recording`` that ``value`` is a version of ``variable``."""
    if value._serial in recording.variable_values:
        return
    if recording.graph_mode and variable._serial in recording.assigned:
        return  # a value of the trace's own (see tracer.graph_mode.recording)
    recording.variable_values[value._serial] = (variable, value)
    if recording.graph_mode or is_trainable(value.dtype):
        recording.tracked.add(value._serial)


register_readable(Variable)
