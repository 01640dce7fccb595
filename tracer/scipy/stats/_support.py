"""What the distributions share: scipy's types of arguments and results, and ``-inf``
outside a density's support, with no NaN in any derivative."""

import functools

import numpy as np

from tracer.core import as_operand


def like_scipy(function):
    """``function`` taking and giving what scipy.stats does: every argument an array (or
    tensor) of at least float64, as scipy computes (numbers, lists, integers and float32
    promoted; a tensor is cast, so its gradient comes back in its own dtype), and a 0-d
    result a numpy scalar.  Flags (``bool``) and ``None`` pass as they are."""
    return _converting(function, _widened)


def in_their_dtypes(function):
    """``like_scipy`` for the few distributions scipy computes in their arguments' dtypes
    (numpy's promotions: float32 stays float32), such as ``dirichlet``."""
    return _converting(function, as_operand)


def _converting(function, convert):
    @functools.wraps(function)
    def computed_like_scipy(*args, **kwargs):
        args = [a if a is None or isinstance(a, bool) else convert(a) for a in args]
        kwargs = {k: v if v is None or isinstance(v, bool) else convert(v)
                  for k, v in kwargs.items()}
        result = function(*args, **kwargs)
        return result[()] if isinstance(result, np.ndarray) and result.ndim == 0 else result
    return computed_like_scipy


def _widened(value):
    operand = as_operand(value)
    dtype = np.promote_types(operand.dtype, np.float64)
    return operand if operand.dtype == dtype else operand.astype(dtype)


def on_support(inside, y, safe, log_density):
    """``log_density(y)`` where ``inside``, else ``-inf``.  Outside, the density is
    computed at ``safe`` instead, so the branch ``where`` drops is finite and passes a
    zero derivative, not NaN."""
    return np.where(inside, log_density(np.where(inside, y, safe)), -np.inf)
