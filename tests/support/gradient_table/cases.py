"""The gradient table's vocabulary: cases, input domains, and row builders.

A row (``unary``, ``binary``, ``reduction``, ``fixed``) expands into cases
over shapes, broadcasting, axes and keepdims.  A case is a function of
tensors plus, per argument, a shape and an input domain that keeps the
function smooth around the sample (positive for ``log``, well-separated
values for ``max`` so there are no ties, no remainder jumps nearby).
"""

import zlib

import numpy as np


def uniform(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def signed(lo, hi):
    """Magnitudes in ``(lo, hi)`` with random signs: away from zero."""
    return lambda rng, shape: rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def spaced(offset):
    """Distinct values 0.2 apart; ``spaced(0)`` and ``spaced(1)`` never come closer than 0.1.

    So maxima, minima and ``maximum(x, y)`` have no ties anywhere near the sample.
    """
    def sample(rng, shape):
        size = int(np.prod(shape, dtype=np.int64))
        return ((2.0 * (rng.permutation(size) - size // 2) + offset) * 0.1).reshape(shape)
    return sample


def zero_every(k):
    """Nonzero values, except exact zeros at every ``k``-th element (for ``prod``)."""
    def sample(rng, shape):
        values = NONZERO(rng, shape)
        values.flat[::k] = 0.0
        return values
    return sample


REAL = uniform(-2.0, 2.0)
POSITIVE = uniform(0.5, 2.0)
UNIT = uniform(-0.9, 0.9)
ABOVE_ONE = uniform(1.2, 3.0)
NONZERO = signed(0.5, 2.0)
DISTINCT = spaced(0)
DISTINCT_2 = spaced(1)
# x / y stays strictly between two integers for these, so x % y and x // y are smooth.
DIVIDEND = signed(2.3, 2.9)
DIVISOR = signed(1.02, 1.08)


class Case:
    """One function of tensors at inputs drawn from per-argument ``(shape, domain)`` specs."""

    def __init__(self, id, fn, specs, check=None):
        self.id = id
        self.fn = fn
        self.specs = specs
        self.check = check or {}

    def arrays(self, dtype=np.float64):
        """One array per argument; a complex domain gives the complex dtype of ``dtype``'s precision."""
        rng = np.random.default_rng(zlib.crc32(self.id.encode()))
        arrays = [domain(rng, shape) for shape, domain in self.specs]
        return [a.astype(np.result_type(dtype, np.complex64) if np.iscomplexobj(a) else dtype)
                for a in arrays]


def shape_text(shape):
    return "x".join(map(str, shape)) or "scalar"


UNARY_SHAPES = [(), (3,), (2, 3)]
BINARY_SHAPES = [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (1, 3)),
                 ((), (2, 3)), ((2, 3), ())]


def unary(name, fn, domain=REAL, shapes=UNARY_SHAPES):
    return [Case(f"{name}-{shape_text(s)}", fn, [(s, domain)]) for s in shapes]


def binary(name, fn, domain=REAL, second=None, shapes=BINARY_SHAPES):
    second = second or domain
    return [Case(f"{name}-{shape_text(a)}-{shape_text(b)}", fn, [(a, domain), (b, second)])
            for a, b in shapes]


REDUCTION_AXES = [((), None), ((5,), None), ((5,), 0), ((5,), -1), ((2, 3, 4), None),
                  ((2, 3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3))]


def reduction(name, fn, domain=REAL, axes=REDUCTION_AXES):
    """``fn(x, axis, keepdims)`` over every axis form, with and without keepdims."""
    return [Case(f"{name}-{shape_text(shape)}-axis{axis}-keep{keep}",
                 lambda x, axis=axis, keep=keep: fn(x, axis, keep), [(shape, domain)])
            for shape, axis in axes for keep in (False, True)]


def fixed(name, fn, *specs, **check):
    """A single case: ``specs`` are ``(shape, domain)`` pairs, one per argument."""
    return [Case(name, fn, list(specs), check)]


def weighted_concat(parts, axis):
    """Recombine split pieces with distinct weights, so a swapped piece changes the result."""
    return np.concatenate([part * (k + 1.0) for k, part in enumerate(parts)], axis=axis)


def key_text(key):
    return repr(key).replace(" ", "").replace("\n", "")
