"""Errors and warnings that tracer raises, so users can catch them by class."""


class UnsupportedOperation(TypeError):
    """A numpy function without a derivative rule was applied to a tensor a tape records."""


class GradientTapeWarning(UserWarning):
    """Something about a tape's use that is allowed but probably not what was meant."""
