"""The tracing core: tensors, what a tape records, and applying a primitive.

Applying a primitive computes its numpy value at once, wraps it in a new
``Tensor`` and appends an ``OpRecord`` to every active recording that tracks
one of the inputs.  Records are compact tuples of Python objects; the
networkx graph is built from them only when someone asks (``tape.graph``).
The tapes recording on this thread are in ``tracer.state``.  This module knows
nothing about numpy's API: ``tracer.numpy.hooks`` gives tensors numpy's protocols,
and the modules of ``tracer.numpy`` map numpy's functions onto primitives.
"""

import operator

import numpy as np

from ir.operators import ArrayOperators
from ir.primitive import TRACED_PRIORITY, TRAINABLE_KINDS, register_value_kind
from ir.sizes.traced import product
import tracer.buffers as buffers
from tracer.diagnostics.escapes import note_decision, note_escape, warn_escape, warn_reentry
from tracer.numpy.methods import ArrayMethods
from tracer.sites import APPLY_FRAMES, CALLER_FRAMES, CONVERSION_FRAMES, user_site
from tracer.snapshots import snapshot
from tracer.state import serials as _serials, symbolic as _symbolic, thread_state as _state
from tracer.sizes.tracing import (Dim, concrete_params, declared_among, note_sized,
                                   size_operands, symbolic_shape)

_ufunc = np.ufunc
_ndarray = np.ndarray
NO_PARAMS = {}
"""The params of a primitive that takes none (shared; never mutated)."""
ARRAY_PRIORITY = 100
"""numpy's ``__array_priority__``: above ndarray's, so ``X @ t`` and ``X * t`` with an
ndarray ``X`` defer to the tensor's operators instead of converting it."""


record_values = operator.attrgetter("args", "out")
"""``(args, out)`` of an ``OpRecord`` as its rules see them: the reverse walk's ``values``
when rules run on tensors."""


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


READERS = set()
_PREPARED = {list, tuple, Dim}
"""Classes of arguments that ``apply`` turns into operands first: variables, lists, and
symbolic sizes used as numbers."""


def register_readable(cls):
    """Let instances of ``cls`` (variables) be used as arguments: ``arg._read()`` gives a tensor."""
    READERS.add(cls)
    _PREPARED.add(cls)
    register_value_kind(cls, apply, priority=TRACED_PRIORITY)


def read(value):
    """A variable's current value tensor (its read counted by tapes); others unchanged."""
    return value._read() if value.__class__ in READERS else value


def apply(prim, args, params):
    """Compute ``prim`` on the values of ``args`` and record it on every tape that tracks one.

    This is the hot path of recording: it is kept to one pass over the
    arguments and no work at all for tapes that track none of them.
    """
    for arg in args:
        if arg.__class__ in _PREPARED:
            args = tuple([_operand(a) for a in args])
            if _symbolic.declared and any(a.__class__ is Dim for a in args):
                args = size_operands(args, wrap)
            break
    sized = applied = None
    if params and _symbolic.declared:
        applied = params
        params, sized = concrete_params(params)
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
        record(prim, args, params, result, stack, site_skip=APPLY_FRAMES, sized=sized is not None)
        if sized is not None:
            note_sized(stack, result, sized, applied)
    if _state.accumulators:
        push_forward(prim, args, params, result)
    return result


def _operand(value):
    """A variable's value tensor (a read), and a list or tuple holding tensors as the tensor
    ``np.stack`` makes of it, as TensorFlow packs such lists: numpy would convert it to a
    constant array and cut the gradient.  Anything else is left as it is."""
    if value.__class__ in READERS:
        return value._read()
    if value.__class__ in (list, tuple) and holds_traced(value):
        return np.stack([as_operand(v) for v in value])
    return value


def is_traced(value):
    """Whether ``value`` is a tensor or a variable (anything ``apply`` reads as one)."""
    return isinstance(value, Tensor) or hasattr(value, "_read")


def holds_traced(values):
    """Whether a list or tuple holds a tensor or variable, however deeply nested."""
    return any(is_traced(v) for v in flat_leaves(values, {}))


def flat_leaves(args, kwargs):
    """Every leaf of the arguments, however deeply nested in lists and tuples."""
    out = []
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, (list, tuple)):
            out.extend(flat_leaves(value, {}))
        else:
            out.append(value)
    return out


def as_operand(value):
    """``value`` as an operand of a primitive: tensors and variables as they are, nested
    lists holding some as the tensor ``np.stack`` builds from them, the rest as arrays.

    numpy reads ``[1.0, t]`` as an array; a primitive's rules read operands' shapes.
    """
    if isinstance(value, (list, tuple)) and holds_traced(value):
        return np.stack([as_operand(v) for v in value])
    return value if is_traced(value) else np.asarray(value)


def push_forward(prim, args, params, result):
    """Let each active forward accumulator give ``result`` a tangent.

    Outermost first: an inner accumulator's tangent computation may read
    ``result``, whose own tangent the outer ones must know by then.
    """
    for accumulator in _state.accumulators:
        accumulator.push_forward(prim, args, params, result)


def record(prim, args, params, result, stack=None, site_skip=CALLER_FRAMES, sized=False):
    """Append one record of ``prim(*args) -> result`` to each recording that tracks an argument.

    ``site_skip`` frames (this one and its callers) are tapegen's own and are
    not searched for the user's line; see ``user_site``.  A result ``sized`` by
    symbolic sizes in its params, or computed from a tensor with declared axes, is
    recorded whatever tapes watch: its shape depends on the sizes.
    """
    site = None
    recordings = _state.stack if stack is None else stack
    for recording in recordings:
        tracked = recording.tracked
        in_ids = tuple([a._serial if a.__class__ is Tensor and a._serial in tracked else None
                        for a in args])
        if not (any(in_ids) or sized or recording.derived and _derived(recording, args)
                or _symbolic.declared and declared_among(args)):
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
            warn_reentry(recording, args, in_ids)
        # A float computed from integers alone (np.unwrap of positions) carries no
        # gradient either: it is derived, like them, not tracked.
        if result._value.dtype.kind in TRAINABLE_KINDS and any(in_ids):
            tracked.add(result._serial)
        else:
            recording.derived.add(result._serial)


_IMMUTABLE = {int, float, complex, bool, str, slice, type(None), type(Ellipsis), Dim}
"""Classes of arguments that need no look at all (``Tensor`` joins them below)."""


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
    ghost._value = np.broadcast_to(np.zeros((), tensor.dtype), tensor._value.shape)
    ghost._serial = tensor._serial
    ghost.name = tensor.name
    dims = getattr(tensor, "_dims", None)
    if dims is not None:
        ghost._dims = dims
    return ghost


def wrap(array, name=None):
    """A new tensor around ``array`` itself, not a copy: for arrays tapegen has just made."""
    tensor = _new_tensor(Tensor)
    tensor._value = array
    tensor._serial = next(_serials)
    tensor.name = name
    return tensor


_new_tensor = object.__new__


def concrete_shape(value):
    """The shape of a tensor's (or variable's, or array's) value as plain ints: what
    tapegen's own eager code computes with, whatever sizes are symbolic."""
    return np.shape(value_of(value))


def value_of(value):
    """The array behind a tensor or variable (without recording a read); others unchanged."""
    if value.__class__ is Tensor:
        return value._value
    if value.__class__ in READERS:
        return value._value._value
    return value


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
            if arg.__class__ in READERS and recording.tracks_variable(arg):
                return True
    return False


class Tensor(ArrayOperators, ArrayMethods):
    """An immutable array value that tapes can record operations on.

    Create one with ``tracer.constant``; numpy functions and Python
    operators on tensors return tensors.
    """

    __slots__ = ("_value", "_serial", "name", "_dims")
    __array_priority__ = ARRAY_PRIORITY

    def __init__(self, value, dtype=None, name=None):
        self._value = np.array(value_of(value), dtype=dtype)
        self._serial = next(_serials)
        self.name = name

    @property
    def shape(self):
        """The shape; with symbolic axes (``tracer.constant(..., dims=...)``), ``Dim``s."""
        if _symbolic.declared:
            return symbolic_shape(self)
        return self._value.shape

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def size(self):
        if _symbolic.declared:
            return product(self.shape)
        return self._value.size

    def __len__(self):
        """``len(t)``: Python makes it a plain int, which fixes a symbolic size
        (``t.shape[0]`` keeps it symbolic)."""
        if _symbolic.declared and self.ndim:
            return self.shape[0]
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
            note_escape(self, how, value, skip=CONVERSION_FRAMES)
        return note_decision(self, how, value)

    def _decided(self, how, value):
        """``value``, a truth or an index taken from this tensor: a tape follows the branch
        taken (noted: generated code repeats it), a loop body or a function being traced for
        graph mode refuses it."""
        if any(recording.strict or recording.graph_mode for recording in _state.stack):
            note_escape(self, how, value, skip=CONVERSION_FRAMES)
        return note_decision(self, how, value)

    def __array__(self, dtype=None, copy=None):
        tensor = self if self.__class__ is Tensor else self._value  # variables share this method
        view = tensor._view()
        if tracked_by_a_tape((self,)):
            warn_escape(tensor, view)
        note_decision(tensor, "np.asarray(t)", view, skip=CALLER_FRAMES)
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
        return self._decided("bool(t)", bool(self._value))

    def __float__(self):
        return self._converted("float(t)", float(self._value))

    def __int__(self):
        return self._converted("int(t)", int(self._value))

    def __complex__(self):
        return self._converted("complex(t)", complex(self._value))

    def __index__(self):
        return self._decided("an index or size", self._value.__index__())

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


register_value_kind(Tensor, apply, priority=TRACED_PRIORITY)
_IMMUTABLE.add(Tensor)
