"""The ndarray methods users call on tensors and variables, each a numpy call.

Every method goes through numpy's own dispatch, so ``t.sum(axis=0)`` is
recorded exactly like ``np.sum(t, axis=0)``.
"""

import numpy as np


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

    def argmax(self, axis=None):
        return np.argmax(self, axis=axis)

    def argmin(self, axis=None):
        return np.argmin(self, axis=axis)
