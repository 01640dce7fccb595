"""Errors and warnings that tracer raises, so users can catch them by class."""


class UnsupportedOperation(TypeError):
    """A numpy function without a derivative rule was applied to a tensor a tape records."""


class TapeStateError(RuntimeError, ValueError):
    """A ``GradientTape`` method was called in a state that does not allow it.

    TensorFlow raises ``ValueError`` for some of these misuses (re-entering an
    active tape, ``reset`` outside the context) and ``RuntimeError`` for
    others (a second ``gradient`` on a non-persistent tape); one class that
    subclasses both keeps code written against either working.
    """


class ControlFlowError(TypeError, ValueError):
    """A loop or branch body that cannot be traced once for every step: it returned the
    wrong structure, changed a carry's shape or dtype, or turned a step's value into a
    plain value.  (JAX raises ``TypeError`` for some of these, TensorFlow ``ValueError``.)"""


class GradientTapeWarning(UserWarning):
    """Something about a tape's use that is allowed but probably not what was meant."""
