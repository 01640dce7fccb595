"""The ndarray methods users call on tensors and variables, each a numpy call.

Every method goes through numpy's own dispatch, so ``t.sum(axis=0)`` is
recorded exactly like ``np.sum(t, axis=0)``, with the gradient numpy's
function has (``t.argmax()``, ``t.any(axis=0)`` have none).  Attributes that
describe only shape and type (``nbytes``, ``device``) are plain values.  The
ndarray methods that work in place or on raw memory are defined only to say
what to write instead (``REFUSED``).
"""

import numpy as np

_IMMUTABLE = "tensors are immutable"
_BUILD = ("build the new value instead (np.where(mask, new, t), np.concatenate of slices), "
          "or keep changing state in a tracer.Variable and its assign methods")
_RAW = "works on the raw bytes of a numpy array, not on values a tape can follow"

REFUSED_METHODS = {
    "sort": f"sorts in place, and {_IMMUTABLE}: use np.sort(t, axis=...), which returns the "
            "sorted tensor",
    "partition": f"works in place, and {_IMMUTABLE}: use np.partition(t, kth, axis=...), which "
                 "returns the partitioned tensor",
    "fill": f"works in place, and {_IMMUTABLE}: use np.full_like(t, value)",
    "put": f"works in place, and {_IMMUTABLE}: {_BUILD}",
    "resize": f"works in place, and {_IMMUTABLE}: use np.reshape(t, shape) to keep the "
              "elements, or slices and np.pad to change their number",
    "setfield": f"works in place, and {_IMMUTABLE}: {_BUILD}",
    "setflags": f"changes a numpy array's flags, and {_IMMUTABLE}: t.numpy() is a read-only "
                "array, np.array(t) a writable copy",
    "getfield": f"{_RAW}: use t.astype(dtype) to convert values, or t.numpy().getfield(...) "
                "outside a tape",
    "byteswap": f"{_RAW}: call it on t.numpy() outside a tape",
    "view": f"{_RAW}, and {_IMMUTABLE}, so a view is the tensor itself: use t, t.astype(dtype) "
            "to convert values, or t.numpy().view(...) outside a tape",
    "dump": "writes a numpy array to a file: use np.save(file, t.numpy()), or pickle.dump(t, "
            "file), which keeps it a tensor",
    "dumps": "pickles a numpy array: use pickle.dumps(t), which keeps it a tensor, or "
             "pickle.dumps(t.numpy())",
    "tofile": "writes a numpy array's bytes to a file: use t.numpy().tofile(...) or "
              "np.save(file, t.numpy())",
}
"""ndarray methods that tensors define only to raise ``TypeError``: what they would do,
and what to write instead."""

MEMORY_ATTRIBUTES = ("base", "ctypes", "data", "flags", "strides")
"""ndarray attributes that describe an array's memory: a tensor's memory is tapegen's own
(shared, recycled, or a stand-in once a tape lets it go), so they raise ``AttributeError``."""

REFUSED = frozenset(REFUSED_METHODS) | frozenset(MEMORY_ATTRIBUTES)
"""Every ndarray name tensors define only to say what to write instead."""

_ASSIGN = {"__iadd__": "v.assign_add(d)", "__isub__": "v.assign_sub(d)"}


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

    def argmax(self, axis=None, out=None, *, keepdims=False):
        return np.argmax(self, axis=axis, out=out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        return np.argmin(self, axis=axis, out=out, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False, *, where=True):
        return np.all(self, axis=axis, keepdims=keepdims, where=where, **_given(out=out))

    def any(self, axis=None, out=None, keepdims=False, *, where=True):
        return np.any(self, axis=axis, keepdims=keepdims, where=where, **_given(out=out))

    def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
        return np.argsort(self, axis=axis, kind=kind, order=order, stable=stable)

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        return np.argpartition(self, kth, axis=axis, kind=kind, order=order)

    def nonzero(self):
        return np.nonzero(self)

    def searchsorted(self, v, side="left", sorter=None):
        return np.searchsorted(self, v, side=side, sorter=sorter)

    def round(self, decimals=0, out=None):
        return np.round(self, decimals=decimals, out=out)

    def compress(self, condition, axis=None, out=None):
        return np.compress(condition, self, axis=axis, out=out)

    def choose(self, choices, out=None, mode="raise"):
        return np.choose(self, choices, out=out, mode=mode)

    @property
    def mT(self):
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return np.swapaxes(self, -1, -2)

    @property
    def flat(self):
        """The elements in a flat tensor, to index and iterate (not to assign to)."""
        return np.ravel(self)

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def device(self):
        """``"cpu"``: tensors hold numpy arrays."""
        return "cpu"

    def to_device(self, device, /, *, stream=None):
        """The tensor itself, or a variable's value read: both live on the 'cpu' device."""
        if device != "cpu" or stream is not None:
            raise ValueError(f"tensors live on the 'cpu' device, as numpy arrays do (got "
                             f"device={device!r}, stream={stream!r})")
        return self._read() if self._is_variable() else self

    def tobytes(self, order="C"):
        """The value's bytes: a conversion, noted like ``.tolist()`` while a tape records
        it (a variable is read, as by its other conversions)."""
        tensor = self._read() if self._is_variable() else self
        return tensor._converted("t.tobytes()", tensor._value.tobytes(order))

    def _is_variable(self):
        """Variables, unlike tensors, have a state that changes and are read by ``_read``."""
        return hasattr(self, "_read")

    # --- Python's protocols ---------------------------------------------------

    def __divmod__(self, other):
        return np.divmod(self, other)

    def __rdivmod__(self, other):
        return np.divmod(other, self)

    def __lshift__(self, other):
        return np.left_shift(self, other)

    def __rlshift__(self, other):
        return np.left_shift(other, self)

    def __rshift__(self, other):
        return np.right_shift(self, other)

    def __rrshift__(self, other):
        return np.right_shift(other, self)

    def __contains__(self, value):
        return bool((self == value).any())

    def __format__(self, spec):
        return format(self._value, spec)

    def __round__(self, ndigits=None):
        raise TypeError("round(t) is not defined for tensors, as for numpy arrays: use "
                        "np.round(t, decimals), a tensor, or round(float(t), n) for a number")

    def __delitem__(self, key):
        raise TypeError(f"del t[...]: {_IMMUTABLE}; {_BUILD}")

    def __copy__(self):
        """A tensor is an immutable value and a variable a piece of state, so a shallow copy
        is the object itself, as TensorFlow's variables are: gradients flow through it, and
        a container copied with ``copy.copy`` still shares its variables."""
        return self

    def __deepcopy__(self, memo):
        """A variable's deep copy is a new variable with its value, as in TensorFlow."""
        if not self._is_variable():
            return self
        return type(self)(self._value._value, trainable=self.trainable, name=self.name)

    def __reduce__(self):
        """Pickled as the value (and a variable's settings): unpickling makes a new tensor
        or variable, which no tape has seen."""
        if not self._is_variable():
            return type(self), (self._value, None, self.name)
        return type(self), (self._value._value, self.trainable, self.name)


def _given(**arguments):
    """The keyword arguments that are not ``None``: numpy records a call only without ``out``."""
    return {key: value for key, value in arguments.items() if value is not None}


def _in_place(name, operator):
    """``t += d`` makes a new tensor, as in TensorFlow; ``v += d`` on a variable is refused,
    since the name ``v`` would then hold a tensor and the variable be left unchanged."""
    def in_place(self, other):
        if not self._is_variable():
            return NotImplemented  # Python falls back to ``t = t + d``
        instead = _ASSIGN.get(name, f"v.assign(v {operator} d)")
        raise TypeError(f"v {operator}= d on a tracer.Variable would rebind v to a tensor and "
                        f"leave the variable unchanged: write {instead} to change the "
                        f"variable, or w = v {operator} d for a new tensor")
    in_place.__name__ = name
    return in_place


def _refused(name, why):
    def refused(self, *args, **kwargs):
        raise TypeError(f"ndarray.{name} {why}")
    refused.__name__ = name
    return refused


def _memory(name):
    def refused(self):
        raise AttributeError(f"t.{name} describes a numpy array's memory, and a tensor's memory "
                             f"is tapegen's own: read t.numpy().{name} instead")
    return property(refused)


for _name, _operator in [("__iadd__", "+"), ("__isub__", "-"), ("__imul__", "*"),
                         ("__itruediv__", "/"), ("__ifloordiv__", "//"), ("__imod__", "%"),
                         ("__ipow__", "**"), ("__imatmul__", "@"), ("__iand__", "&"),
                         ("__ior__", "|"), ("__ixor__", "^"), ("__ilshift__", "<<"),
                         ("__irshift__", ">>")]:
    setattr(ArrayMethods, _name, _in_place(_name, _operator))
for _name, _why in REFUSED_METHODS.items():
    setattr(ArrayMethods, _name, _refused(_name, _why))
for _name in MEMORY_ATTRIBUTES:
    setattr(ArrayMethods, _name, _memory(_name))
del _name, _operator, _why
