"""The tracing core: tensors, the stack of recording tapes, and applying a primitive.

Applying a primitive computes its numpy value at once, wraps it in a new
``Tensor`` and appends an ``OpRecord`` to every active recording that tracks
one of the inputs.  Records are compact tuples of Python objects; the
networkx graph is built from them only when someone asks (``tape.graph``).
This module knows nothing about numpy's API; ``numpy_api`` maps it.
"""

import copy
import itertools
import os
import sys
import threading
import warnings

import numpy as np

import ir
from ir.operators import ArrayOperators
from ir.primitive import TRAINABLE_KINDS, register_value_kind
from tracer import buffers
from tracer.errors import GradientTapeWarning
from tracer.methods import ArrayMethods

_serials = itertools.count(1)
_ufunc = np.ufunc
_ndarray = np.ndarray
NO_PARAMS = {}
"""The params of a primitive that takes none (shared; never mutated)."""


class _TapeStack(threading.local):
    def __init__(self):
        self.stack = []
        self.custom_forwards = []
        self.accumulators = []


_state = _TapeStack()


def active_recordings():
    """The recordings of the tapes currently recording on this thread, innermost last."""
    return _state.stack


def accumulator_stack():
    """The forward accumulators active on this thread, outermost first (a copy)."""
    return list(_state.accumulators)


def set_accumulators(accumulators):
    """Make ``accumulators`` the ones that see primitive applications on this thread."""
    _state.accumulators = accumulators


def custom_forwards():
    """The ``CustomForward`` of each ``custom_gradient`` forward running on this thread,
    innermost last."""
    return _state.custom_forwards


class CustomForward:
    """What a ``custom_gradient`` forward did that its gradient function must answer for.

    ``variables`` maps the serial of each variable read to the variable:
    their gradients must come from the user's function too.  ``opaque_site``
    is where the forward first applied a numpy function without a derivative
    rule to a traced value (allowed, since the user supplies the derivative,
    but that value is a constant to every tape, which matters at higher order).
    """

    __slots__ = ("variables", "opaque_site")

    def __init__(self):
        self.variables = {}
        self.opaque_site = None


class OpRecord:
    """One recorded application of a primitive (an ``ir.backward`` entry).

    ``args`` are the arguments as applied (tensors and constants), ``out``
    the result tensor; ``in_ids`` holds each argument's serial where this
    tape tracks it, else ``None``; ``site`` is ``(code, line)`` of the user's
    frame.
    """

    __slots__ = ("prim", "args", "params", "out", "out_id", "in_ids", "site")

    def __init__(self, prim, args, params, out, in_ids, site):
        self.prim = prim
        self.args = args
        self.params = params
        self.out = out
        self.out_id = out._serial
        self.in_ids = in_ids
        self.site = site


_READERS = set()
_PREPARED = {list, tuple}
"""Classes of arguments that ``apply`` turns into operands first: variables, and lists."""


def register_readable(cls):
    """Let instances of ``cls`` (variables) be used as arguments: ``arg._read()`` gives a tensor."""
    _READERS.add(cls)
    _PREPARED.add(cls)
    register_value_kind(cls, apply, priority=10)


def read(value):
    """A variable's current value tensor (its read counted by tapes); others unchanged."""
    return value._read() if value.__class__ in _READERS else value


def apply(prim, args, params):
    """Compute ``prim`` on the values of ``args`` and record it on every tape that tracks one.

    This is the hot path of recording: it is kept to one pass over the
    arguments and no work at all for tapes that track none of them.
    """
    for arg in args:
        if arg.__class__ in _PREPARED:
            args = tuple([_operand(a) for a in args])
            break
    values = [a._value if a.__class__ is Tensor else a for a in args]
    impl = prim.impl
    value = None
    if impl.__class__ is _ufunc:
        for v in values:
            if v.__class__ is _ndarray and v.nbytes >= buffers.MIN_BYTES:
                if prim.elementwise and not params:  # in recycled memory
                    kept = prim.reads_out if _state.stack else False
                    value = buffers.ufunc_result(impl, values, kept)
                break
    if value is None:
        value = impl(*values, **params)
    if value.__class__ is not np.ndarray:
        value = np.asarray(value)
    result = wrap(value)
    stack = _state.stack
    if stack:
        record(prim, args, params, result, stack, site_skip=4)
    if _state.accumulators:
        push_forward(prim, args, params, result)
    return result


def _operand(value):
    """A variable's value tensor (a read), and a list or tuple holding tensors as the tensor
    ``np.stack`` makes of it, as TensorFlow packs such lists: numpy would convert it to a
    constant array and cut the gradient.  Anything else is left as it is."""
    if value.__class__ in _READERS:
        return value._read()
    if value.__class__ in (list, tuple) and arguments.holds_traced(value):
        return arguments.as_operand(value)
    return value


def push_forward(prim, args, params, result):
    """Let each active forward accumulator give ``result`` a tangent.

    Outermost first: an inner accumulator's tangent computation may read
    ``result``, whose own tangent the outer ones must know by then.
    """
    for accumulator in _state.accumulators:
        accumulator.push_forward(prim, args, params, result)


def record(prim, args, params, result, stack=None, site_skip=3):
    """Append one record of ``prim(*args) -> result`` to each recording that tracks an argument.

    ``site_skip`` frames (this one and its callers) are tapegen's own and are
    not searched for the user's line; see ``user_site``.
    """
    site = None
    recordings = _state.stack if stack is None else stack
    for recording in recordings:
        tracked = recording.tracked
        in_ids = tuple([a._serial if a.__class__ is Tensor and a._serial in tracked else None
                        for a in args])
        if not any(in_ids) and not (recording.derived and _derived(recording, args)):
            continue  # (serials start at 1)
        if site is None:
            site = user_site(site_skip)
            operands = args
            for arg in args:
                if arg.__class__ not in _IMMUTABLE:
                    operands = snapshot(args, recordings)
                    break
        kept_args, kept_out = operands, result
        # An elementwise op's arguments are never larger than its result.
        if prim.reads is not None and (not prim.elementwise
                                       or result._value.nbytes >= LARGE_VALUE_BYTES):
            kept_args, kept_out = _release_unread(prim.reads, operands, in_ids, result)
        recording.records.append(OpRecord(prim, kept_args, params, kept_out, in_ids, site))
        if recording.escapes:
            _warn_reentry(recording, args, in_ids)
        # A float computed from integers alone (np.unwrap of positions) carries no
        # gradient either: it is derived, like them, not tracked.
        if result._value.dtype.kind in TRAINABLE_KINDS and any(in_ids):
            tracked.add(result._serial)
        else:
            recording.derived.add(result._serial)


_MUTABLE = (_ndarray, list, tuple)
"""Arguments that can change after an operation read them (tuples may hold arrays)."""
_IMMUTABLE = {int, float, complex, bool, str, slice, type(None), type(Ellipsis)}
"""Classes of arguments that need no look at all (``Tensor`` joins them below)."""


def snapshot(args, recordings):
    """``args`` with every plain numpy array, list or tuple in it replaced by a copy.

    A tape's gradient must use the values an operation saw, as TensorFlow's
    does (it converts numpy operands to tensors): the caller may change an
    array in place afterwards (``X[:] = 0``, a buffer refilled at each step
    of a loop).  Tensors are immutable and need no copy, nor does the array
    that ``t.numpy()`` returned (a read-only view of one), which stays itself
    so that ``explain`` can recognise it.
    """
    return tuple([_frozen(arg, recordings) if isinstance(arg, _MUTABLE) else arg
                  for arg in args])


def _frozen(arg, recordings):
    if arg.__class__ is list or arg.__class__ is tuple:
        return copy.deepcopy(arg)
    for recording in recordings:
        if recording.escapes and not arg.flags.writeable and any(
                escape.value is arg for escape in recording.escapes):
            return arg
    if arg.nbytes < buffers.MIN_BYTES:
        return arg.copy()
    low, high = np.lib.array_utils.byte_bounds(arg)
    if high - low < arg.nbytes and not any(stride % arg.itemsize for stride in arg.strides):
        return _copy_of_span(arg, low, high)
    return buffers.copy(arg)


def _copy_of_span(arg, low, high):
    """A copy of a view whose elements share memory (``np.broadcast_to``, sliding windows):
    the memory it spans is copied, not every element, and the view rebuilt over the copy."""
    itemsize = arg.itemsize
    first = arg[tuple(slice(-1, None) if stride < 0 else slice(0, 1) for stride in arg.strides)]
    span = np.lib.stride_tricks.as_strided(np.asarray(first).reshape(1),
                                           ((high - low) // itemsize,), (itemsize,),
                                           writeable=False)
    saved = buffers.copy(span)
    start = saved[(arg.__array_interface__["data"][0] - low) // itemsize:]
    return np.lib.stride_tricks.as_strided(start, arg.shape, arg.strides, subok=True,
                                           writeable=False)


def _derived(recording, args):
    """Whether an argument is a recorded integer or boolean value (a mask, an index).

    No gradient flows through those, but what is computed from them depends on
    the tracked values, so it is recorded too: a graph (and code generated from
    it) recomputes ``(x > 0) & (x < 1)`` instead of keeping the recorded mask.
    """
    derived = recording.derived
    return any(a.__class__ is Tensor and a._serial in derived for a in args)


LARGE_VALUE_BYTES = 1 << 16
"""Values at least this large are not kept on a tape unless a derivative rule reads them."""


def _release_unread(reads, args, in_ids, result):
    """The arguments and result a record keeps: large values that no rule of a
    tracked input reads become data-less stand-ins."""
    large = [k for k, i in enumerate(in_ids)
             if i is not None and args[k]._value.nbytes >= LARGE_VALUE_BYTES]
    large_out = result._value.nbytes >= LARGE_VALUE_BYTES
    if not large and not large_out:
        return args, result
    needed = set()
    for k, i in enumerate(in_ids):
        if i is not None:
            needed.update(reads.get(k, ()))
    if any(k not in needed for k in large):
        args = tuple([stand_in(a) if k in large and k not in needed else a
                      for k, a in enumerate(args)])
    if large_out and "out" not in needed:
        result = stand_in(result)
    return args, result


def stand_in(tensor):
    """``tensor``'s identity, shape and dtype without its data (zero-strided zeros)."""
    ghost = _new_tensor(Tensor)
    ghost._value = np.broadcast_to(np.zeros((), tensor.dtype), tensor.shape)
    ghost._serial = tensor._serial
    ghost.name = tensor.name
    return ghost


def wrap(array, name=None):
    """A new tensor around ``array`` itself, not a copy: for arrays tapegen has just made."""
    tensor = _new_tensor(Tensor)
    tensor._value = array
    tensor._serial = next(_serials)
    tensor.name = name
    return tensor


_new_tensor = object.__new__


def value_of(value):
    """The array behind a tensor or variable (without recording a read); others unchanged."""
    if value.__class__ is Tensor:
        return value._value
    if value.__class__ in _READERS:
        return value._value._value
    return value


class Escape:
    """A tensor that a tape tracks, converted to plain numpy or Python values.

    ``how`` names the conversion as the user wrote it (``float(t)``,
    ``np.asarray(t)``, ...); ``value`` is what it returned, kept to recognise
    that value when it comes back into a recorded computation as a constant;
    ``position`` is a serial taken at the conversion: only tensors with a
    larger serial (and records whose result has one) can have used what it
    returned.
    """

    __slots__ = ("tensor", "site", "how", "value", "position")

    def __init__(self, tensor, site, how, value, position):
        self.tensor = tensor
        self.site = site
        self.how = how
        self.value = value
        self.position = position


SCALAR_CONVERSIONS = frozenset({"float(t)", "complex(t)", "t.item()"})
"""Conversions whose Python number is recognised when it re-enters (ints are too common)."""
ASSIGNMENT = "v.assign(t)"
"""How a value stored in a variable is noted: a cut TensorFlow users expect, not a conversion."""


def note_escape(tensor, how, value, skip=3):
    """Note on each recording that tracks ``tensor`` that it was converted by ``how``.

    Returns the user's site.  Conversions are how values leave the trace
    without a sound: ``tape.explain`` names the noted line, and ``record``
    warns where a noted value comes back as a constant.
    """
    site = user_site(skip)
    for recording in _state.stack:
        if tensor._serial in recording.tracked:
            recording.escapes.append(Escape(tensor, site, how, value, next(_serials)))
    return site


def warn_escape(tensor, value):
    """Warn that ``tensor``, which a tape records, is being turned into a numpy array.

    numpy may copy the array (``np.array([t1, t2])``), so where it comes back
    cannot be recognised: the warning is given here, at the conversion.
    """
    site = note_escape(tensor, "np.asarray(t)", value, skip=4)
    warn_at_user_line(
        f"a tensor that a tape is recording was converted to a numpy array{_at(site)}: what "
        "is computed from that array is a constant to every tape, so no gradient flows "
        "through it. Keep the value a tensor: np.stack or np.concatenate instead of "
        "np.array([...]), X @ t instead of X.dot(t); or convert it outside the tape.")


def warn_at_user_line(message):
    """``GradientTapeWarning`` attributed to the innermost frame outside tapegen and numpy."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, GradientTapeWarning, stacklevel=level)


def _at(site):
    location = site_location(site)
    return f" at {location} (in {location.function})" if location else ""


def _warn_reentry(recording, args, in_ids):
    """Warn when a constant argument of a recorded op is a value noted as escaped.

    ``float(loss)`` for a log line is fine; ``x * float(t)`` silently cuts the
    gradient through ``t``, and this is where the user can see it.
    """
    for arg, i in zip(args, in_ids):
        if i is not None or arg.__class__ is Tensor:
            continue
        escape = _escape_of(recording.escapes, arg)
        if escape is not None:
            warn_at_user_line(
                f"a constant entering a recorded computation{_at(user_site(4))} is the value "
                f"{escape.how} returned{_at(escape.site)}, where a tensor the tape records "
                "was converted to a plain value: no gradient flows back through it. Use the "
                "tensor itself (t, not float(t) or t.numpy()) in the computation.")
            return


def _escape_of(escapes, value):
    """The noted escape ``value`` came from: the same Python number, or a view of the same memory."""
    if isinstance(value, (float, complex)):
        for escape in escapes:
            if escape.how in SCALAR_CONVERSIONS and escape.value == value:
                return escape
    elif isinstance(value, np.ndarray):
        for escape in escapes:
            if escape.how == "t.numpy()" and np.may_share_memory(value, escape.value):
                return escape
    return None


def tracks_any(args):
    """True when some active tape tracks one of ``args`` and needs its derivative from tapegen.

    Inside a ``custom_gradient`` forward the user's gradient function
    supplies the derivative instead: the answer is False, and the forward
    notes where it happened.
    """
    if not tracked_by_a_tape(args):
        return False
    forwards = _state.custom_forwards
    if not forwards:
        return True
    if forwards[-1].opaque_site is None:
        forwards[-1].opaque_site = user_site()
    return False


def derived_by_a_tape(args):
    """True when some active tape recorded one of ``args`` as an integer or boolean value."""
    return any(recording.derived and _derived(recording, args) for recording in _state.stack)


def tracked_by_a_tape(args):
    """True when some active tape tracks one of ``args`` (tensors or variables)."""
    for recording in _state.stack:
        tracked = recording.tracked
        for arg in args:
            if arg.__class__ is Tensor and arg._serial in tracked:
                return True
            if arg.__class__ in _READERS and recording.tracks_variable(arg):
                return True
    return False


class Recording:
    """What one tape has recorded: the state behind a ``GradientTape``."""

    __slots__ = ("tracked", "derived", "records", "watched", "variables", "variable_values",
                 "watch_accessed_variables", "escapes")

    def __init__(self, watch_accessed_variables):
        self.tracked = set()  # serials of the values gradients flow through
        self.derived = set()  # serials of recorded integer and boolean results
        self.records = []
        self.escapes = []  # an Escape for each conversion of a tracked tensor to plain values
        self.watched = {}
        self.variables = {}
        self.variable_values = {}  # serial of a version read -> (variable, value tensor)
        self.watch_accessed_variables = watch_accessed_variables

    def tracks_variable(self, variable):
        return variable._serial in self.variables or (
            self.watch_accessed_variables and variable.trainable)


class Tensor(ArrayOperators, ArrayMethods):
    """An immutable array value that tapes can record operations on.

    Create one with ``tracer.constant``; numpy functions and Python
    operators on tensors return tensors.
    """

    __slots__ = ("_value", "_serial", "name")
    __array_priority__ = 100

    def __init__(self, value, dtype=None, name=None):
        self._value = np.array(value_of(value), dtype=dtype)
        self._serial = next(_serials)
        self.name = name

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        prim = numpy_api.UFUNCS.get(ufunc)
        if prim is not None and method == "__call__" and not kwargs:
            return apply(prim, inputs, NO_PARAMS)
        return numpy_api.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return numpy_api.array_function(func, args, kwargs)

    @property
    def shape(self):
        return self._value.shape

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def size(self):
        return self._value.size

    def __len__(self):
        return len(self._value)

    def numpy(self):
        """The value as a read-only numpy array (``np.array(t)`` gives a writable copy)."""
        return self._converted("t.numpy()", self._view())

    def _view(self):
        view = self._value.view()
        view.flags.writeable = False
        return view

    def _converted(self, how, value):
        """``value``, converted from this tensor by ``how``: noted while a tape tracks it."""
        if tracked_by_a_tape((self,)):
            note_escape(self, how, value, skip=4)
        return value

    def __array__(self, dtype=None, copy=None):
        tensor = self if self.__class__ is Tensor else self._value  # variables share this method
        view = tensor._view()
        if tracked_by_a_tape((self,)):
            warn_escape(tensor, view)
        if copy:
            return np.array(view, dtype=dtype, copy=True)
        if dtype is None or np.dtype(dtype) == view.dtype:
            return view
        if copy is False:
            raise ValueError(f"a {view.dtype} tensor cannot be seen as {np.dtype(dtype)} "
                             "without a copy; pass copy=None or copy=True")
        return view.astype(dtype)

    def __repr__(self):
        name = f" name={self.name!r}" if self.name else ""
        return f"<tracer.Tensor{name} shape={self.shape} dtype={self.dtype.name} numpy={self._value!r}>"

    def __str__(self):
        return str(self._value)

    def __bool__(self):
        return bool(self._value)

    def __float__(self):
        return self._converted("float(t)", float(self._value))

    def __int__(self):
        return self._converted("int(t)", int(self._value))

    def __complex__(self):
        return self._converted("complex(t)", complex(self._value))

    def __index__(self):
        return self._value.__index__()

    def __getitem__(self, key):
        return numpy_api.getitem(self, key)

    def __setitem__(self, key, value):
        raise TypeError(
            "tracer.Tensor is immutable: item assignment is not supported. Build the new "
            "value instead, e.g. np.where(mask, new, t) or np.concatenate of slices; for "
            "state that changes, use a tracer.Variable and its assign methods")

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(len(self)):
            yield self[i]

    def tolist(self):
        return self._converted("t.tolist()", self._value.tolist())

    def item(self, *args):
        return self._converted("t.item()", self._value.item(*args))



register_value_kind(Tensor, apply, priority=10)
_IMMUTABLE.add(Tensor)


_INTERNAL = tuple(os.path.dirname(m.__file__) + os.sep for m in (np, ir)) + (
    os.path.dirname(__file__) + os.sep,)


def user_site(skip=2):
    """``(code, line)`` of the innermost frame outside tapegen and numpy, or ``None``.

    The search starts ``skip`` frames up (by default above this function and
    its caller), so every caller must pass a ``skip`` that covers only
    tapegen's own frames.  Each frame looked at gets a frame object, and
    making those for short-lived internal frames is what costs.
    """
    frame = sys._getframe(skip)
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame = frame.f_back
    if frame is None:
        return None
    return frame.f_code, frame.f_lineno


def site_location(site):
    """The ``ir.SourceLocation`` of a recorded site."""
    if site is None:
        return None
    code, line = site
    return ir.SourceLocation(code.co_filename, line, code.co_name)


from tracer import arguments, numpy_api  # noqa: E402  (they build on the names above)
