"""Values crossing between autograd's API and tapegen: tensors in, plain numpy out.

A derivative's arguments become fresh ``tracer`` tensors; its results go back
to plain numpy values, unless an outer derivative is being traced (a tape
records or an accumulator is active), in which case they stay tensors so
that the outer derivative sees through them.
"""

import numpy as np

import tracer
from ir.structure import flatten, pack_as
from tracer.core import Tensor, value_of
from tracer.state import accumulator_stack, active_recordings


def tracing():
    """Whether an outer derivative is being traced: results must stay tensors."""
    return bool(active_recordings()) or bool(accumulator_stack())


def plain(value):
    """The numpy value behind a tensor; other values unchanged."""
    return value_of(value) if isinstance(value, Tensor) else value


def outward(structure):
    """``structure`` as the caller gets it: plain numpy leaves at the top level."""
    if tracing():
        return structure
    return pack_as(structure, [plain(leaf) for leaf in flatten(structure)])


def fresh_sources(x):
    """``x`` (any nesting of arrays and numbers) with each leaf a new tensor to
    differentiate by, and the list of those leaves.

    A leaf that is already a tensor (an outer derivative traces it) goes
    through an identity: the outer derivative sees through the new tensor, and
    this derivative tells it apart from the outer value (no perturbation
    confusion).  Top-level leaves are named ``x0``, ``x1``... so that a
    generated module's parameters can be matched to them.
    """
    named = not tracing()
    leaves = [_fresh(leaf, f"x{k}" if named else None) for k, leaf in enumerate(flatten(x))]
    return pack_as(x, leaves), leaves


def _fresh(leaf, name):
    if isinstance(leaf, Tensor):
        return np.positive(leaf)
    array = np.array(leaf)
    if array.dtype.kind not in "fc":
        array = array.astype(np.result_type(array, 0.0))
    return tracer.constant(array, name=name)


def conj(value):
    """The complex conjugate of a complex value; a real value unchanged.

    autograd writes the gradient of a real function of ``z = x + iy`` as
    ``df/dx - i df/dy``; TensorFlow, and so tapegen, as ``df/dx + i df/dy``.
    Vector-Jacobian products are conjugated on the way in and on the way out.
    """
    if value is None:
        return None
    dtype = value.dtype if isinstance(value, Tensor) else np.asarray(value).dtype
    return np.conj(value) if dtype.kind == "c" else value


def is_traced(value):
    return isinstance(value, Tensor)


def zeros_like(value):
    array = np.asarray(plain(value))
    return np.zeros(array.shape, array.dtype)


__all__ = ["conj", "flatten", "fresh_sources", "is_traced", "outward", "pack_as", "plain",
           "tracing", "zeros_like"]
