"""What the distributions share: scipy's types of arguments and results, NaN for
parameters outside their domain, and ``-inf`` outside a density's support, with no NaN
in any derivative."""

import functools
import inspect

import numpy as np

from tracer.core import as_operand, is_traced


def like_scipy(function=None, *, valid=None):
    """``function`` taking and giving what scipy.stats does: every argument an array (or
    tensor) of at least float64, as scipy computes (numbers, lists, integers and float32
    promoted; a tensor is cast, so its gradient comes back in its own dtype), and a 0-d
    result a numpy scalar.  Flags (``bool``) and ``None`` pass as they are.

    ``valid``, a function of some of ``function``'s parameters (by name), says where
    they are in their domain (scipy's ``_argcheck``, and ``scale > 0``): elsewhere the
    result is NaN, as scipy's, computed without warnings."""
    if function is None:
        return functools.partial(like_scipy, valid=valid)
    return _converting(function if valid is None else _checked(function, valid), _widened)


def _checked(function, valid):
    signature, names = inspect.signature(function), inspect.signature(valid).parameters

    @functools.wraps(function)
    def nan_outside_the_domain(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        inside = valid(*(bound.arguments[name] for name in names))
        if not is_traced(inside) and np.all(inside):
            return function(*args, **kwargs)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.where(inside, function(*args, **kwargs), np.nan)
    return nan_outside_the_domain


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
