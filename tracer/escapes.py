"""Values leaving the trace: conversions of tracked tensors to plain values, noted on each
tape that tracks them, and warnings where a noted value comes back as a constant or
where numpy converts a tensor behind the user's back.
"""

import os
import sys

import numpy as np

from tracer.sites import (APPLY_FRAMES, CALLER_FRAMES, CONVERSION_FRAMES, described_site,
                          user_site, warn_at_user_line)
from tracer.scipy_equivalents import scipy_equivalent
from tracer.state import serials, thread_state


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
    """Warn when a constant argument of a recorded op is a value noted as escaped.

    ``float(loss)`` for a log line is fine; ``x * float(t)`` silently cuts the
    gradient through ``t``, and this is where the user can see it.  (Tensors
    are never escaped values: only numbers and arrays are looked up.)
    """
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
