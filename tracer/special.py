"""scipy.special functions that are not ufuncs, written to be differentiated.

scipy's ``logsumexp`` and ``polygamma`` are Python functions that convert
their arguments to arrays, so on a tensor they would cut the gradient; these
record on tapes and work on plain arrays too.  ``logsumexp`` needs only
numpy; ``polygamma`` needs scipy.
"""

import numpy as np

from ir.primitives import special  # None when scipy is not installed
from ir.bindings import normalize_axis
from tracer.core import Tensor
from tracer.numpy.api import stop_gradient


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``log(sum(b * exp(a), axis))`` without overflow, as ``scipy.special.logsumexp``.

    The largest exponent is taken out before exponentiating.  That shift is
    held constant: the result does not depend on it, so neither does any
    derivative, and the gradient is ``softmax(a)`` (times ``b``) to every
    order.  Weights ``b`` broadcast against ``a`` and may be negative; with
    ``return_sign`` the result is ``(log(abs(sum)), sign(sum))``, else a
    negative sum gives NaN.  Elements of zero weight are left out, as scipy
    and JAX leave them, so they get no gradient, not even for their weight:
    an infinite ``a`` masked by ``b == 0`` is then no NaN.
    """
    a = _as_array(a)
    if b is not None:
        b = _as_array(b)
        a = np.where(b == 0, -np.inf, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = _shift(a, axis)
        if isinstance(shift, Tensor):
            shift = stop_gradient(shift)
        terms = np.exp(a - shift)
        total = np.sum(terms if b is None else b * terms, axis=axis, keepdims=keepdims)
        if return_sign:
            sign = np.sign(total)
            total = np.abs(total)
        out = np.log(total) + (shift if keepdims else np.squeeze(shift, axis=axis))
    return (out, sign) if return_sign else out


def _shift(a, axis):
    """The largest finite exponent along ``axis`` (kept as a length-1 axis), else 0;
    0 too where the axis is empty (the sum is then 0, its log -inf, as in scipy)."""
    axes = range(len(a.shape)) if axis is None else normalize_axis(axis, len(a.shape))
    if any(a.shape[i] == 0 for i in axes):
        shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
        return np.zeros(shape, np.result_type(a.dtype, np.float16))
    shift = np.max(a, axis=axis, keepdims=True)
    return np.where(np.isfinite(shift), shift, 0)


def _as_array(value):
    """Arrays, tensors and variables as they are; lists and numbers as arrays."""
    return value if hasattr(value, "shape") else np.asarray(value)


def polygamma(n, x):
    """``scipy.special.polygamma(n, x)``, differentiable in ``x``.

    The order ``n`` gets no gradient: it picks a function of the family.
    """
    if special is None:
        raise ModuleNotFoundError("tracer.special.polygamma needs scipy: pip install scipy",
                                  name="scipy")
    return special.polygamma(n, x)
