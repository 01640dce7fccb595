"""Signatures: what about a call's arguments decides whether a trace can serve it.

TensorFlow's rules: a tensor or array is described by its shape and dtype, a
variable by its identity, a Python number, string or ``None`` by its value, a
list, tuple or dict by its structure and what it holds; any other object by
itself (so it must be hashable: an instance is its identity).  A ``TensorSpec``
describes arrays ahead of any call, ``None`` marking an axis of any size.
"""

import re

import numpy as np

from ir.names import identifier
from ir import structure
from ir.structure import flatten, keys_in_order, pack_as
from tracer.core import Tensor
from tracer.variable import Variable

_PYTHON_VALUES = (bool, int, float, complex, str, bytes, type(None))


class TensorSpec:
    """The shape and dtype of an array argument; ``None`` in ``shape`` for an axis of
    any size (TensorFlow's ``tf.TensorSpec``; the dtype defaults to numpy's float64)."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype=np.float64, name=None):
        if shape is None or isinstance(shape, (str, bytes)):
            raise TypeError(f"TensorSpec needs a shape: a tuple of sizes, None for an axis of "
                            f"any size; got {shape!r}")
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.name = name

    def is_compatible_with(self, value):
        """Whether an array or tensor ``value`` fits: same dtype and rank, and the same size
        on every axis this spec fixes."""
        shape = np.shape(value._value if isinstance(value, Tensor) else value)
        return (_dtype_of(value) == self.dtype and len(shape) == len(self.shape)
                and all(d is None or d == s for d, s in zip(self.shape, shape)))

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        name = f", name={self.name!r}" if self.name else ""
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name}{name})"


def leaf_array(leaf):
    """The array of a tensor leaf; other leaves (arrays, specs) as they are."""
    return leaf._value if isinstance(leaf, Tensor) else leaf


def _dtype_of(value):
    return value._value.dtype if isinstance(value, Tensor) else np.asarray(value).dtype


def is_array(value):
    """Whether ``value`` is an argument described by its shape and dtype."""
    return isinstance(value, (Tensor, np.ndarray, np.generic, TensorSpec))


def signature_key(arguments, relaxed=None):
    """The key of bound ``arguments`` (parameter name to value) and their array leaves, in
    order.  ``relaxed`` maps a leaf's path to the axes it leaves free (``None`` sizes):
    those axes are left out of the key.  A value that is no signature (an unhashable
    object) raises a ``TypeError`` naming its parameter."""
    leaves = []
    key = tuple((name, _key(value, name, leaves, relaxed)) for name, value in arguments.items())
    return key, leaves


def _key(value, path, leaves, relaxed):
    cls = value.__class__
    if cls is np.ndarray or cls is Tensor:  # the usual leaves, first
        leaves.append(value)
        array = value if cls is np.ndarray else value._value
        shape, dtype = array.shape, array.dtype
    elif isinstance(value, Variable):
        return ("variable", value._serial)
    elif is_array(value):
        leaves.append(value)
        if isinstance(value, TensorSpec):
            shape, dtype = value.shape, value.dtype
        else:
            shape, dtype = np.shape(leaf_array(value)), _dtype_of(value)
    else:
        return _python_key(value, path, leaves, relaxed)
    free = relaxed.get(path) if relaxed else None
    if free:
        shape = tuple(None if axis in free else d for axis, d in enumerate(shape))
    return ("array", shape, dtype)


def _python_key(value, path, leaves, relaxed):
    """The key of a value that is not an array: by value, by structure, or itself."""
    if isinstance(value, _PYTHON_VALUES):
        return (type(value).__name__, value)
    if isinstance(value, dict):
        return ("dict", tuple((k, _key(value[k], f"{path}[{k!r}]", leaves, relaxed))
                              for k in keys_in_order(value)))
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_key(v, f"{path}[{k}]", leaves, relaxed)
                                   for k, v in enumerate(value)))
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"the argument {path} of a tracer.function is a {type(value).__name__}, which is "
            "not hashable, so it cannot be part of the signature that decides whether to "
            "trace again. Pass arrays, tensors, variables, Python numbers and strings, or "
            "lists, tuples and dicts of them; or make the object hashable") from None
    return ("object", value)


def leaf_paths(arguments):
    """The path of each array leaf of ``arguments`` (``x``, ``batch[0]``,
    ``inputs['image']``), in ``signature_key``'s order (``ir.structure``'s)."""
    return [path for name, value in arguments.items()
            for path, leaf in zip(structure.leaf_paths(value, name), flatten(value))
            if is_array(leaf)]


def parameter_name(path):
    """A path as the name of a generated function's parameter: ``batch[0]`` as
    ``batch_0``, ``inputs['image']`` as ``inputs_image``."""
    return re.sub("_+", "_", identifier(path, "x"))


def replace_leaves(arguments, replacements):
    """``arguments`` with their array leaves replaced, in order, by ``replacements``."""
    replacements = iter(replacements)
    return {name: pack_as(value, [next(replacements) if is_array(leaf) else leaf
                                  for leaf in flatten(value)])
            for name, value in arguments.items()}
