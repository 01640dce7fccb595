"""The ndarray methods users call on tensors and variables, each a numpy call.

Every method goes through numpy's own dispatch, so ``t.sum(axis=0)`` is
recorded exactly like ``np.sum(t, axis=0)``.
"""

import numpy as np


REFUSED = frozenset({"sort", "partition"})
"""Methods that would work in place, defined only to say what to call instead."""


class ArrayMethods:
    """``.T``, ``.sum()``, ``.reshape()`` and friends, as their numpy functions."""

    __slots__ = ()

    @property
    def T(self):
        return np.transpose(self)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return np.max(self, axis=axis, out=out, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return np.min(self, axis=axis, out=out, keepdims=keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return np.var(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return np.std(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return np.reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = axes[0]
        return np.transpose(self, axes or None)

    def swapaxes(self, axis1, axis2):
        return np.swapaxes(self, axis1, axis2)

    def squeeze(self, axis=None):
        return np.squeeze(self, axis=axis)

    def ravel(self, order="C"):
        return np.ravel(self, order=order)

    def flatten(self, order="C"):
        return np.ravel(self, order=order)

    def dot(self, other):
        return np.dot(self, other)

    def clip(self, min=None, max=None):
        return np.clip(self, min, max)

    def take(self, indices, axis=None):
        return np.take(self, indices, axis=axis)

    def astype(self, dtype, copy=True):
        return np.astype(self, dtype)

    def copy(self):
        return np.copy(self)

    def cumsum(self, axis=None, dtype=None, out=None):
        return np.cumsum(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return np.cumprod(self, axis=axis, dtype=dtype, out=out)

    def repeat(self, repeats, axis=None):
        return np.repeat(self, repeats, axis=axis)

    def sort(self, axis=-1, kind=None, order=None):
        raise TypeError("ndarray.sort sorts in place, and tensors are immutable: use "
                        "np.sort(t, axis=...), which returns the sorted tensor")

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        raise TypeError("ndarray.partition works in place, and tensors are immutable: use "
                        "np.partition(t, kth, axis=...), which returns the partitioned tensor")

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return np.diagonal(self, offset=offset, axis1=axis1, axis2=axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return np.trace(self, offset=offset, axis1=axis1, axis2=axis2, dtype=dtype, out=out)

    def conj(self):
        return np.conj(self)

    def conjugate(self):
        return np.conjugate(self)

    @property
    def real(self):
        return np.real(self)

    @property
    def imag(self):
        return np.imag(self)

    def argmax(self, axis=None):
        return np.argmax(self, axis=axis)

    def argmin(self, axis=None):
        return np.argmin(self, axis=axis)
