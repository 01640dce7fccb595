"""numpy's protocols on tensors and variables: ``__array_ufunc__``, ``__array_function__``
and indexing, which hand numpy's calls to the mapping in ``tracer.numpy.api``.

They are installed into the classes by the package on import (``install``), so that
the tracing core sits below numpy's API mapping instead of importing it.
"""

from tracer.core import NO_PARAMS, Tensor, apply
from tracer.numpy.api import UFUNCS, array_function, array_ufunc
from tracer.numpy.indexing import getitem
from tracer.variable import Variable


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """A plain call of a mapped ufunc applies its primitive at once: the recording hot path."""
    prim = UFUNCS.get(ufunc)
    if prim is not None and method == "__call__" and not kwargs:
        return apply(prim, inputs, NO_PARAMS)
    return array_ufunc(ufunc, method, inputs, kwargs)


def _array_function(self, func, types, args, kwargs):
    return array_function(func, args, kwargs)


def install():
    """Give tensors and variables numpy's protocols (variables' arguments are read by ``apply``)."""
    for cls in (Tensor, Variable):
        cls.__array_ufunc__ = _array_ufunc
        cls.__array_function__ = _array_function
        cls.__getitem__ = getitem
