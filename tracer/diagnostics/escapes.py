"""Values leaving the trace: conversions of tracked tensors to plain values, noted on each
tape that tracks them, and warnings where a noted value comes back as a constant or
where numpy converts a tensor behind the user's back; the numbers the user's code
passes to recorded ops after a conversion, which may have been computed from it; and
every conversion of a value a tape records (truths and indexes too), which a module
generated from the tape repeats (``tracer.specialised``).
"""

import os
import sys

import numpy as np

from tracer.sites import (APPLY_FRAMES, CALLER_FRAMES, CONVERSION_FRAMES, described_site,
                          user_call, user_site, warn_at_user_line)
from tracer.diagnostics.scipy_equivalents import scipy_equivalent
from tracer.state import serials, thread_state


class Escape:
    """A tensor that a tape tracks, converted to plain numpy or Python values.

    ``how`` names the conversion as the user wrote it (``float(t)``,
    ``np.asarray(t)``, ...); ``value`` is what it returned, kept to recognise
    that value when it comes back into a recorded computation as a constant;
    ``position`` is a serial taken at the conversion: only tensors with a
    larger serial (and records whose result has one) can have used what it
    returned.  ``numbers`` holds ``(number, record)`` for each number the user's
    code passed to a recorded op after this conversion and before the next
    (``note_numbers``): what Python arithmetic on converted values gives.
    """

    __slots__ = ("tensor", "site", "how", "value", "position", "numbers")

    def __init__(self, tensor, site, how, value, position):
        self.tensor = tensor
        self.site = site
        self.how = how
        self.value = value
        self.position = position
        self.numbers = []


class Decision:
    """A value a tape records (tracked, or an integer or boolean computed from tracked
    values), converted to a plain value: a truth, an index, a number, a list, an array.

    The recording went on with what it returned, so code generated from the
    recording repeats it at every call (``tracer.specialised``).  ``serial`` is
    the converted tensor's; ``position`` a serial taken at the conversion, which
    only what was recorded afterwards exceeds; ``value`` the Python scalar it
    returned (``None`` for other results).
    """

    __slots__ = ("serial", "site", "how", "value", "position")

    def __init__(self, serial, site, how, value, position):
        self.serial = serial
        self.site = site
        self.how = how
        self.value = value
        self.position = position


def note_decision(tensor, how, value, skip=CONVERSION_FRAMES):
    """Note on each tape recording that records ``tensor`` that ``how`` converted it to
    ``value``; returns ``value``.  (Loop bodies being traced refuse conversions instead.)"""
    serial = getattr(tensor._value, "_serial", tensor._serial)  # a variable's: its value's
    site = None
    for recording in thread_state.stack:
        if not recording.strict and (serial in recording.tracked
                                     or serial in recording.derived):
            site = site or user_site(skip)
            if site is not None and _SCIPY_LIBRARY in site[0].co_filename:
                return value
            kept = value if isinstance(value, (bool, int, float, complex)) else None
            recording.decisions.append(Decision(serial, site, how, kept, next(serials)))
    return value


_SCIPY_LIBRARY = os.sep + os.path.join("scipy", "_lib") + os.sep
"""scipy's own helpers, which convert arguments to find their array library (under
``SCIPY_ARRAY_API=1``) and then call the function that dispatches to tapegen: their
conversions steer nothing a recording holds."""


SCALAR_CONVERSIONS = frozenset({"float(t)", "complex(t)", "t.item()"})
"""Conversions whose Python number is recognised when it re-enters (ints are too common)."""
ASSIGNMENT = "v.assign(t)"
"""How a value stored in a variable is noted: a cut TensorFlow users expect, not a conversion."""


def note_escape(tensor, how, value, skip=CALLER_FRAMES):
    """Note on each recording that tracks ``tensor`` that it was converted by ``how``.

    Returns the user's site.  Conversions are how values leave the trace
    without a sound: ``tape.explain`` names the noted line, and ``record``
    warns where a noted value comes back as a constant.
    """
    site = user_site(skip)
    for recording in thread_state.stack:
        if tensor._serial in recording.tracked:
            recording.escapes.append(Escape(tensor, site, how, value, next(serials)))
    return site


def warn_escape(tensor, value):
    """Warn that ``tensor``, which a tape records, is being turned into a numpy array.

    numpy may copy the array (``np.array([t1, t2])``), so where it comes back
    cannot be recognised: the warning is given here, at the conversion.
    """
    if _read_by_scipys_dispatch():
        return
    site = note_escape(tensor, "np.asarray(t)", value, skip=CONVERSION_FRAMES)
    warn_at_user_line(
        f"a tensor that a tape is recording was converted to a numpy array{described_site(site)}: "
        "what is computed from that array is a constant to every tape, so no gradient flows "
        "through it. Keep the value a tensor: np.stack or np.concatenate instead of "
        "np.array([...]), X @ t instead of X.dot(t); or convert it outside the tape."
        + scipy_equivalent(skip=2))


def _read_by_scipys_dispatch():
    """Whether scipy's ``array_namespace`` converts the tensor: with SCIPY_ARRAY_API=1,
    scipy.special reads each argument's dtype so, then hands the tensor itself to the
    ufunc, which records.  (The frames between: this function, ``warn_escape`` and
    ``__array__``.)"""
    caller = sys._getframe(3).f_code
    return (caller.co_name == "array_namespace"
            and f"{os.sep}scipy{os.sep}" in caller.co_filename)


def warn_reentry(recording, args, in_ids):
    """Warn when a constant argument of a recorded op is a value noted as escaped, and
    note the numbers the user passed to it (``note_numbers``).

    ``float(loss)`` for a log line is fine; ``x * float(t)`` silently cuts the
    gradient through ``t``, and this is where the user can see it.  (Tensors
    are never escaped values: only numbers and arrays are looked up.)
    """
    note_numbers(recording, args, in_ids)
    for arg, i in zip(args, in_ids):
        if i is not None:
            continue
        escape = _escape_of(recording.escapes, arg)
        if escape is not None:
            here = described_site(user_site(APPLY_FRAMES))
            warn_at_user_line(
                f"a constant entering a recorded computation{here} "
                f"is the value {escape.how} returned{described_site(escape.site)}, where a tensor "
                "the tape records was converted to a plain value: no gradient flows back "
                "through it. Use the tensor itself (t, not float(t) or t.numpy()) in the "
                "computation.")
            return


def _escape_of(escapes, value):
    """The noted escape ``value`` came from: the same Python number, or a view of the same
    memory."""
    if isinstance(value, (float, complex)):
        for escape in escapes:
            if escape.how in SCALAR_CONVERSIONS and escape.value == value:
                return escape
    elif isinstance(value, np.ndarray):
        for escape in escapes:
            if escape.how == "t.numpy()" and np.may_share_memory(value, escape.value):
                return escape
    return None


NUMBERS = frozenset({float, complex, np.float16, np.float32, np.float64, np.longdouble,
                     np.complex64, np.complex128, np.clongdouble})
"""The types of what Python arithmetic on converted values gives (``math.sqrt(float(t))``,
``float(t) ** 0.5``, ``np.sqrt(t.item())``); integers are sizes and counts far more often.
(Looked up by exact type: ``isinstance`` of a tensor costs a microsecond.)"""


def note_numbers(recording, args, in_ids):
    """Note on the recording's latest conversion each number among ``args`` (of the op it
    has just recorded) that the user's code passed and did not write as a literal.

    Such a number may have been computed from a converted value, and no tape
    can tell: ``tape.explain`` and ``gradient`` name it when the target depends
    on it (``tracer.diagnostics.explain_numbers``).  A number is the user's when it is
    among the arguments of the call their code made into tapegen, not made
    inside it (``norm.logpdf``'s constants); a literal when it is the very
    object a function on the stack holds among its constants (``loss * 0.5``,
    ``scale(t, 0.5)``); and a default value of the function called is neither.
    """
    numbers = [a for a, i in zip(args, in_ids) if i is None and a.__class__ in NUMBERS]
    if not numbers:
        return
    entry, user = user_call(sys._getframe(1))
    numbers = [n for n in numbers if user is None or id(n) not in _literals(user.f_code)]
    if not numbers:
        return  # the usual case, a literal on the user's line, decided by one look-up
    defaults = _defaults(entry)
    passed = [value for value in _arguments(entry.f_locals) if value.__class__ in NUMBERS
              and not any(value is default for default in defaults)]
    for number in numbers:
        given = next((value for value in passed if value == number), None)
        if given is not None and not _written(given, user):
            recording.escapes[-1].numbers.append((given, recording.records[-1]))


def _defaults(frame):
    """The default values of the function running in ``frame``, found by its qualified
    name in its module (none for a function that name does not find, such as a closure)."""
    found = frame.f_globals
    for part in getattr(frame.f_code, "co_qualname", frame.f_code.co_name).split("."):
        found = found.get(part) if isinstance(found, dict) else getattr(found, part, None)
    found = getattr(found, "__func__", found)
    return (*(getattr(found, "__defaults__", None) or ()),
            *(getattr(found, "__kwdefaults__", None) or {}).values())


def _arguments(names):
    """The values of a frame's locals, and the items of those that are tuples, lists and
    dicts (``*args``, ``**kwargs``, numpy's dispatch arguments)."""
    for value in names.values():
        if isinstance(value, (tuple, list)):
            yield from value
        elif isinstance(value, dict):
            yield from value.values()
        yield value


def _written(number, frame):
    """Whether ``number`` is a constant of the code of ``frame`` or of a frame above it."""
    while frame is not None:
        if id(number) in _literals(frame.f_code):
            return True
        frame = frame.f_back
    return False


_LITERALS = {}
"""By a code object's id: the code object (kept, so its id is not taken again) and the
ids of the numbers among its constants.  (A code object's hash reads all of it.)"""


def _literals(code):
    known = _LITERALS.get(id(code))
    if known is None:
        known = _LITERALS[id(code)] = (code, frozenset(
            id(c) for c in _constants(code.co_consts) if c.__class__ in NUMBERS))
    return known[1]


def _constants(constants):
    for constant in constants:
        if isinstance(constant, (tuple, frozenset)):
            yield from _constants(constant)
        else:
            yield constant
