"""What recording shares on one thread: the tapes recording, the forward accumulators and
``custom_gradient`` forwards running, and the serial number every traced value gets.

It sits below the tracing core and escape tracking, so that both read it without
importing each other.
"""

import itertools
import threading

serials = itertools.count(1)
"""Creation order of tensors and escapes; starting at 1, a serial is never false."""


class _ThreadState(threading.local):
    def __init__(self):
        self.stack = []
        self.custom_forwards = []
        self.accumulators = []


class _Symbolic:
    """Whether any tensor has been declared with symbolic axes (``tracer.sizes.declared``): until
    then, reading a shape needs no look at symbolic sizes at all."""

    declared = False


symbolic = _Symbolic()

thread_state = _ThreadState()
"""``stack``: recordings innermost last; ``accumulators``: outermost first;
``custom_forwards``: innermost last."""


def active_recordings():
    """The recordings of the tapes currently recording on this thread, innermost last."""
    return thread_state.stack


def accumulator_stack():
    """The forward accumulators active on this thread, outermost first (a copy)."""
    return list(thread_state.accumulators)


def set_accumulators(accumulators):
    """Make ``accumulators`` the ones that see primitive applications on this thread."""
    thread_state.accumulators = accumulators


def custom_forwards():
    """The ``CustomForward`` of each ``custom_gradient`` forward running on this thread,
    innermost last."""
    return thread_state.custom_forwards


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
