"""Where the user is: the innermost frame outside tapegen and numpy, kept as a record's
source site, and warnings attributed to that frame.

Looking for it starts a given number of frames up, past frames known to be
tapegen's own: making frame objects for short-lived internal frames is what
costs.  The counts below are those known frames, named once.
"""

import functools
import os
import sys
import warnings

import numpy as np

import ir
from tracer.errors import GradientTapeWarning

CALLER_FRAMES = 3
"""``user_site``, the function that asks for the site (``record``, ``note_escape``) and
the tapegen function that called it: the frames known to be tapegen's own."""
APPLY_FRAMES = 4
"""``user_site``, ``record``, ``apply`` and ``apply``'s caller (an operator,
``__array_ufunc__`` or a numpy function's handler); also ``user_site``, the re-entry
check, ``record`` and ``apply`` when ``record`` warns of a re-entering value."""
CONVERSION_FRAMES = 4
"""``user_site``, ``note_escape``, the helper that noted the conversion
(``Tensor._converted``, ``warn_escape``) and the conversion (``__float__``, ``__array__``)."""

_INTERNAL = tuple(os.path.dirname(m.__file__) + os.sep for m in (np, ir)) + (
    os.path.dirname(__file__) + os.sep,)
_COMMAND_LINE = os.path.join(os.path.dirname(__file__), "cli") + os.sep
"""tapegen's command line sits in the tracer's folder but uses it as a user does: the
lines of its demo model are a user's lines."""

_GENERATOR = "codegen"
"""The package whose frames a warning passes too (recorded sites do not): code generation
asks a tape to warn for the module it writes, and the warning belongs to the user's line
that asked for the module."""


def user_site(skip=2):
    """``(code, line)`` of the innermost frame outside tapegen and numpy, or ``None``.

    The search starts ``skip`` frames up (by default above this function and
    its caller), so every caller must pass a ``skip`` that covers only
    tapegen's own frames.
    """
    frame = sys._getframe(skip)
    while frame is not None and _internal(frame.f_code.co_filename):
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


def described_site(site):
    """`` at file:line (in function)`` for a message, or nothing when the site is unknown."""
    location = site_location(site)
    return f" at {location} (in {location.function})" if location else ""


def user_call(frame):
    """``(entry, user)``: the frames of the call the user made into tapegen or numpy that
    ``frame`` is part of (its outermost internal frame, whose locals are the arguments
    the user passed) and of the user's code that made it (``None`` if there is none)."""
    entry = frame
    while frame is not None and _internal(frame.f_code.co_filename):
        entry, frame = frame, frame.f_back
    return entry, frame


def warn_at_user_line(message):
    """``GradientTapeWarning`` attributed to the innermost frame outside tapegen (code
    generation included) and numpy."""
    frame, level = sys._getframe(1), 2
    while frame is not None and (_internal(frame.f_code.co_filename) or _generators(frame)):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, GradientTapeWarning, stacklevel=level)


@functools.cache
def _internal(filename):
    """Whether ``filename`` is tapegen's or numpy's; cached, since the walk up the frames
    asks it of the same few files on every recorded operation."""
    return filename.startswith(_INTERNAL) and not filename.startswith(_COMMAND_LINE)


def _generators(frame):
    return frame.f_globals.get("__name__", "").partition(".")[0] == _GENERATOR
