"""Sizes as tracing meets them: a traced size's value beside its expression, and the
shape arithmetic numpy's bindings do on ints, symbolic sizes and traced sizes alike."""

import functools
import operator

import numpy as np

from ir.sizes.dims import Size


class TracedSize:
    """A size met while tracing: its number at the traced sizes (``value``) and its
    expression (``size``).  ``tracer.Dim`` is one; numpy bindings in ``ir`` keep such a
    size as it is in the params they make, so what a graph records is the expression."""

    __slots__ = ()


def map_sizes(value, kind, function):
    """A param (nested tuples, lists and slices) with each leaf of class ``kind`` (a
    size) replaced by ``function(leaf)``."""
    if isinstance(value, kind):
        return function(value)
    if isinstance(value, tuple):
        return tuple(map_sizes(v, kind, function) for v in value)
    if isinstance(value, list):
        return [map_sizes(v, kind, function) for v in value]
    if isinstance(value, slice):
        return slice(*(map_sizes(v, kind, function) for v in (value.start, value.stop, value.step)))
    return value


def holds_sizes(value, kind):
    """Whether a param (nested tuples, lists and slices) has a leaf of class ``kind``."""
    if isinstance(value, kind):
        return True
    if isinstance(value, (tuple, list)):
        return any(holds_sizes(v, kind) for v in value)
    if isinstance(value, slice):
        return holds_sizes((value.start, value.stop, value.step), kind)
    return False


def same_size(a, b):
    """Whether sizes ``a`` and ``b`` (ints, ``Size``s or traced sizes) are the same
    expression: equal at every size, asked without a guard."""
    return _expression(a) == _expression(b)


def product(sizes):
    """The product of sizes (ints, symbolic or traced): an element count."""
    out = 1
    for size in sizes:
        out = out * size
    return out


def as_size(value):
    """A shape entry as numpy reads it: an int, or a symbolic size kept as it is."""
    if isinstance(value, (Size, TracedSize)):
        return value
    return operator.index(value)


def _expression(value):
    return value.size if isinstance(value, TracedSize) else value


SIZES = (int, np.integer, Size, TracedSize)
"""What numpy reads as one size where it takes a shape."""


def resolved_shape(shape, old):
    """``shape`` with its ``-1`` (at most one) made the size that keeps the element count
    of ``old``; sizes may be symbolic."""
    unknown = [k for k, d in enumerate(shape) if isinstance(d, int) and d == -1]
    if not unknown:
        return shape
    known = functools.reduce(operator.mul, (d for d in shape if not (isinstance(d, int) and d == -1)), 1)
    total = functools.reduce(operator.mul, old, 1)
    if len(unknown) > 1 or not _divides(known, total):
        raise ValueError(f"cannot reshape an array of shape {tuple(old)} into shape {shape}")
    return shape[:unknown[0]] + (total // known,) + shape[unknown[0] + 1:]


def _divides(known, total):
    """Whether ``known`` divides ``total`` (at the traced sizes, for traced ones)."""
    value = lambda d: d.value if isinstance(d, TracedSize) else d
    if isinstance(known, Size) or isinstance(total, Size):
        return not isinstance(total % known, int) or total % known == 0
    return value(known) != 0 and value(total) % value(known) == 0
