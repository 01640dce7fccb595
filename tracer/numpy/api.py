"""How numpy's API on tensors maps to ``ir`` primitives: numpy's protocols, the tables of
every family's functions, and what has no gradient.

``array_ufunc`` and ``array_function`` serve the tensors' ``__array_ufunc__``
and ``__array_function__`` (``tracer.numpy.hooks``).  A numpy function with no
mapping raises ``UnsupportedOperation`` (naming the function and the user's
line) when a tape tracks one of its inputs; otherwise it runs on the plain
values, and is recorded as a call when it reads recorded integer or boolean
values (``tracer.numpy.calls``).
"""

import math

import numpy as np

from ir import bindings
from ir.primitives import control, elementwise as ew, reductions as reduction_prims
from tracer.numpy import (calls, elementwise, fft, linalg, products, reductions, reshaping,
                          scipy_ufuncs, shapes, signal, ufuncs)
from tracer.core import NO_PARAMS, READERS, apply, flat_leaves, read, tracks_any
from tracer.errors import UnsupportedOperation
from tracer.numpy.common import merge_tables
from tracer.sites import described_site, user_site


def array_ufunc(ufunc, method, inputs, kwargs):
    """What ``Tensor.__array_ufunc__`` does with anything but a plain call of a mapped ufunc.

    ``np.divmod``, with two results, is its two mapped ufuncs.
    """
    if ufunc is np.divmod and method == "__call__" and not kwargs:
        return np.floor_divide(*inputs), np.remainder(*inputs)
    prim = UFUNCS.get(ufunc)
    if method == "__call__" and prim is not None and set(kwargs) <= {"out", "where", "dtype"}:
        raise TypeError(
            f"np.{ufunc.__name__}(..., {', '.join(f'{k}=' for k in kwargs)}) on a tracer.Tensor: "
            "tensors are immutable and calls are recorded whole, so out=, where= and dtype= "
            "are not supported; use the returned value (and np.where or .astype) instead")
    name = (f"np.{ufunc.__name__}" if getattr(np, ufunc.__name__, None) is ufunc
            else f"the ufunc {ufunc.__name__}") + ("" if method == "__call__" else f".{method}")
    return _unsupported(name, ufunc if method == "__call__" else getattr(ufunc, method),
                        inputs, kwargs)


def array_function(func, args, kwargs):
    """``Tensor.__array_function__``: numpy functions that have a mapping here."""
    handler = FUNCTIONS.get(func)
    if handler is not None:
        return _tensors(handler(*args, **kwargs))
    name = _public_name(func)
    if func in PLAIN_FUNCTIONS:
        return calls.call(func, name, args, kwargs, answers=True,
                                no_gradient=func in VALUE_ANSWERS)
    return _unsupported(name, func, args, kwargs)


def _tensors(result):
    """``result`` with every variable in it read: a handler that gives an argument back
    unchanged (a reshape to its own shape, np.copy, np.pad by nothing) would otherwise
    give the variable itself, whose later ``assign`` would change the result.  As in
    TensorFlow, a function of a variable reads it: the tensor keeps the value it had,
    and the gradient reaches the variable."""
    if result.__class__ in READERS:
        return read(result)
    if result.__class__ in (tuple, list) and any(r.__class__ in READERS for r in result):
        return result.__class__(read(r) for r in result)
    return result


def _public_name(func):
    """``np.unique``, ``np.linalg.matrix_rank``: how users (and generated code) call ``func``."""
    module = getattr(func, "__module__", "") or ""
    if module.startswith("numpy.") and not module.startswith("numpy._"):
        return f"{module.replace('numpy', 'np', 1)}.{func.__name__}"
    return f"np.{func.__name__}"


def _unsupported(name, function, args, kwargs):
    """``function`` on plain values (recorded if it reads recorded integer or boolean
    values), or an error naming it when a tape needs its derivative."""
    if tracks_any(flat_leaves(args, kwargs)):
        raise UnsupportedOperation(
            f"{name} has no derivative rule in tapegen{described_site(user_site())}, and a tape "
            "is recording one of its inputs. Compute it outside the tape (or under "
            "tape.stop_recording()) if no gradient should flow through it, or define its "
            "derivative with tracer.custom_gradient.")
    return calls.call(function, name, args, kwargs)


def stop_gradient(x):
    """``x`` unchanged, but no gradient flows back through it."""
    return apply(control.stop_gradient, (x,), NO_PARAMS)


_FAMILIES = (linalg, shapes, fft, scipy_ufuncs)
FUNCTIONS = merge_tables([bindings.NUMPY_FUNCTIONS] + [family.FUNCTIONS for family in (
    reductions, products, reshaping, elementwise, signal,
    *_FAMILIES)])
"""Every numpy function on tensors: those bound to a primitive beside it in ``ir``, and
the compositions and constructors of ``tracer``'s family modules."""
UFUNCS = merge_tables([ufuncs.UFUNCS] + [family.UFUNCS for family in _FAMILIES])

_NO_GRADIENT_FUNCTIONS = {
    np.argmax: reduction_prims.argmax, np.argmin: reduction_prims.argmin,
    np.argsort: reduction_prims.argsort, np.argpartition: reduction_prims.argpartition,
    np.nonzero: reduction_prims.nonzero, np.flatnonzero: reduction_prims.flatnonzero,
    np.searchsorted: reduction_prims.searchsorted,
    np.round: ew.round_, np.around: ew.round_, np.fix: ew.trunc,
}
"""numpy functions without a gradient that apply one primitive (the primitive says why)."""

_NO_GRADIENT_UFUNCS = [func for func, prim in UFUNCS.items()
                       if prim.no_gradient is not None and func is not np.floor_divide]
"""Mapped ufuncs whose primitive has no gradient, listed as such (np.floor_divide, also
piecewise constant, is arithmetic users expect among the core functions)."""

NON_DIFFERENTIABLE = {
    **{func: prim.no_gradient for func, prim in _NO_GRADIENT_FUNCTIONS.items()},
    **{func: UFUNCS[func].no_gradient for func in _NO_GRADIENT_UFUNCS},
    np.isreal: "returns booleans", np.iscomplex: "returns booleans",
    np.isposinf: "returns booleans", np.isneginf: "returns booleans",
    np.argwhere: "returns integer positions", np.linalg.matrix_rank: "returns an integer",
}
"""numpy functions that compute as usual on tensors and carry no gradient (the
gradient through them is ``None``, as in TensorFlow), never an error: each with
the reason.  Those without a primitive are recorded as calls (``tracer.numpy.calls``)."""


def _call_without_gradient(func):
    """``func`` run on plain values; recorded as a call where it reads recorded values."""
    name = _public_name(func)

    def compute(*args, **kwargs):
        return calls.call(func, name, args, kwargs, no_gradient=True)
    return compute


FUNCTIONS.update({func: _call_without_gradient(func) for func in NON_DIFFERENTIABLE
                  if func not in FUNCTIONS and not isinstance(func, np.ufunc)})

def _shape(a):
    """``np.shape`` of a tensor is its ``shape``: ``Dim``s on symbolic axes, as ``x.shape``
    gives, so that code generated from a trace that reads it holds for every size."""
    shape = getattr(a, "shape", None)
    return shape if isinstance(shape, tuple) else np.shape(a)


def _size(a, axis=None):
    """``np.size`` of a tensor, from ``_shape``: a ``Dim`` where an axis is symbolic."""
    shape = _shape(a)
    return shape[axis] if axis is not None else math.prod(shape)


FUNCTIONS[np.shape] = _shape
FUNCTIONS[np.size] = _size

PLAIN_FUNCTIONS = frozenset({
    np.ndim, np.result_type, np.iscomplexobj, np.isrealobj,
    np.allclose, np.isclose, np.array_equal, np.array_equiv, np.count_nonzero, np.any, np.all,
    np.unique, np.array_repr, np.array_str, np.array2string, np.sort_complex, np.isscalar,
})
"""Functions that answer questions about values (shapes, comparisons of whole
arrays, printing): they run on plain values and return plain values, except
that arrays they compute from recorded integer or boolean values are recorded
(``tracer.numpy.calls``)."""

VALUE_ANSWERS = frozenset({np.any, np.all, np.count_nonzero, np.isclose})
"""Those of ``PLAIN_FUNCTIONS`` whose arrays of truths or counts follow any recorded value,
floating point too: those arrays are recorded (with no gradient), so that
``np.where(x.any(axis=0), ...)`` in generated code computes its mask again."""
