"""How numpy's API on tensors maps to ``ir`` primitives: dot, matmul, tensordot, outer.
"""

import numpy as np

from ir.primitives import linalg
from ir.bindings import array_rank, no_extras, one_axis
from tracer.core import NO_PARAMS, apply


def _dot(a, b, out=None):
    no_extras("dot", out=out)
    a_rank, b_rank = array_rank(a), array_rank(b)
    if a_rank == 0 or b_rank == 0:
        return a * b
    if a_rank <= 2 and b_rank <= 2:
        return apply(linalg.matmul, (a, b), NO_PARAMS)
    b_axis = b_rank - 2 if b_rank >= 2 else 0
    return apply(linalg.tensordot, (a, b), {"axes": ((a_rank - 1,), (b_axis,))})


def normalize_tensordot_axes(axes, a_rank, b_rank):
    """numpy's ``axes`` argument as a pair of tuples of non-negative axes."""
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        return tuple(range(a_rank - n, a_rank)), tuple(range(n))
    a_axes, b_axes = axes
    a_axes = (a_axes,) if isinstance(a_axes, (int, np.integer)) else tuple(a_axes)
    b_axes = (b_axes,) if isinstance(b_axes, (int, np.integer)) else tuple(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError("np.tensordot: shape-mismatch for sum (axes lists differ in length)")
    return (tuple(one_axis(i, a_rank) for i in a_axes),
            tuple(one_axis(i, b_rank) for i in b_axes))


def _tensordot(a, b, axes=2):
    axes = normalize_tensordot_axes(axes, array_rank(a), array_rank(b))
    return apply(linalg.tensordot, (a, b), {"axes": axes})


def _matmul(a, b, out=None, **kwargs):
    no_extras("matmul", out=out, **kwargs)
    return apply(linalg.matmul, (a, b), NO_PARAMS)


def _outer(a, b, out=None):
    no_extras("outer", out=out)
    return np.reshape(a, (-1, 1)) * np.reshape(b, (1, -1))


FUNCTIONS = {np.dot: _dot, np.matmul: _matmul, np.tensordot: _tensordot, np.outer: _outer}
