"""What numpy's linear algebra on tensors asks of its operands: matrices in the last two
axes, and real values where tapegen's derivative rules hold for real matrices only.

The bindings beside the linear algebra primitives and the compositions in
``tracer`` (norms, ``vecdot``, ``lstsq``) share these checks, so each refusal
is worded once.  They read shapes and dtypes without converting the operands.
"""

import numpy as np

from ir.bindings import array_shape


def _holds_complex(x):
    """Whether a tensor, array, scalar or (nested) list of them has complex values."""
    if hasattr(x, "dtype"):
        return x.dtype.kind == "c"
    if isinstance(x, (list, tuple)):
        return any(_holds_complex(v) for v in x)
    return np.result_type(x).kind == "c"


def require_real(name, *arrays):
    """Refuse complex operands, naming the function and what to do instead."""
    for a in arrays:
        if _holds_complex(a):
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
