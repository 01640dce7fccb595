"""What the linear algebra mappings ask of their operands: matrices in the last two axes,
and real values where tapegen's derivative rules hold for real matrices only.
"""

import numpy as np

from ir.bindings import array_shape
from tracer.arguments import plain


def require_real(name, *arrays):
    """Refuse complex operands, naming the function and what to do instead."""
    for a in arrays:
        if np.result_type(plain(a)).kind == "c":
            raise TypeError(
                f"np.linalg.{name} on complex tensors: tapegen's derivative rules for it are "
                "for real matrices only; split the problem into real and imaginary parts "
                "(a real matrix of twice the size) or compute it outside the tape")


def require_matrices(name, a, square=True, complex_ok=False):
    """Check that ``a`` is a (stack of) matrices, square if ``square``, real unless
    ``complex_ok`` (the rules of holomorphic functions hold for complex ones)."""
    if not complex_ok:
        require_real(name, a)
    shape = array_shape(a)
    if len(shape) < 2 or (square and shape[-1] != shape[-2]):
        need = "square matrices" if square else "matrices"
        raise np.linalg.LinAlgError(
            f"np.linalg.{name} needs {need} in the last two axes, got shape {tuple(shape)}")


def swap_last(a):
    """Each matrix transposed (stacked matrices are in the last two axes)."""
    return np.swapaxes(a, -1, -2)
