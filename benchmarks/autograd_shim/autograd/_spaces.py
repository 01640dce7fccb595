"""autograd's vector spaces (``vspace``): zeros, ones, random vectors, bases and inner
products of arrays, numbers and containers of them, which ``check_grads`` and the
differential operators are written in.

Two spaces are equal when they hold values of the same kind, shape and dtype,
as in autograd: a gradient must live in its argument's space.
"""

import numpy as np

from autograd._values import plain

ARRAY_TYPES = (np.ndarray, float, complex, np.floating, np.complexfloating)


class VSpace:
    """A space of values; subclasses say what its vectors look like."""

    iscomplex = False

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"{type(self).__name__}({vars(self)!r})"

    def covector(self, x):
        return x


class ArraySpace(VSpace):
    """Arrays (and numbers) of one shape and dtype."""

    def __init__(self, value):
        array = np.asarray(value)
        self.shape = array.shape
        self.dtype = array.dtype

    @property
    def size(self):
        return int(np.prod(self.shape))

    @property
    def ndim(self):
        return len(self.shape)

    def zeros(self):
        return np.zeros(self.shape, self.dtype)

    def ones(self):
        return np.ones(self.shape, self.dtype)

    def standard_basis(self):
        for index in np.ndindex(*self.shape):
            vector = np.zeros(self.shape, self.dtype)
            vector[index] = 1
            yield vector

    def randn(self):
        return np.array(np.random.randn(*self.shape)).astype(self.dtype)

    def add(self, x, y):
        return x + y

    def scalar_mul(self, x, a):
        return x * a

    def inner_prod(self, x, y):
        return np.dot(np.ravel(x), np.ravel(y))


class ComplexArraySpace(ArraySpace):
    """Complex arrays: twice the real dimension, conjugated covectors."""

    iscomplex = True

    @property
    def size(self):
        return 2 * int(np.prod(self.shape))

    def ones(self):
        return np.full(self.shape, 1 + 1j, self.dtype)

    def standard_basis(self):
        for index in np.ndindex(*self.shape):
            for unit in (1.0, 1j):
                vector = np.zeros(self.shape, self.dtype)
                vector[index] = unit
                yield vector

    def randn(self):
        real = np.array(np.random.randn(*self.shape)).astype(self.dtype)
        imag = np.array(np.random.randn(*self.shape)).astype(self.dtype)
        return real + 1j * imag

    def covector(self, x):
        return np.conj(x)

    def inner_prod(self, x, y):
        return np.real(np.dot(np.conj(np.ravel(x)), np.ravel(y)))


class ContainerSpace(VSpace):
    """Lists, tuples and dicts of values, one space per item."""

    def __init__(self, value):
        self.kind = type(value)
        self.keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        self.spaces = [vspace(value[k]) for k in self.keys]

    @property
    def size(self):
        return sum(s.size for s in self.spaces)

    @property
    def iscomplex(self):
        return any(s.iscomplex for s in self.spaces)

    def _build(self, items):
        items = list(items)
        if self.kind is dict or issubclass(self.kind, dict):
            return self.kind(zip(self.keys, items))
        return self.kind(items)

    def _map(self, method, *values):
        return self._build(getattr(s, method)(*(v[k] for v in values))
                           for s, k in zip(self.spaces, self.keys))

    def zeros(self):
        return self._build(s.zeros() for s in self.spaces)

    def ones(self):
        return self._build(s.ones() for s in self.spaces)

    def randn(self):
        return self._build(s.randn() for s in self.spaces)

    def standard_basis(self):
        for k, space in enumerate(self.spaces):
            for vector in space.standard_basis():
                yield self._build(vector if j == k else s.zeros()
                                  for j, s in enumerate(self.spaces))

    def add(self, x, y):
        return self._map("add", x, y)

    def scalar_mul(self, x, a):
        return self._build(s.scalar_mul(x[k], a) for s, k in zip(self.spaces, self.keys))

    def covector(self, x):
        return self._map("covector", x)

    def inner_prod(self, x, y):
        return sum(s.inner_prod(x[k], y[k]) for s, k in zip(self.spaces, self.keys))


def vspace(value):
    """The space ``value`` lives in; a ``TypeError`` for values autograd cannot differentiate."""
    value = plain(value)
    if isinstance(value, (list, tuple, dict)):
        return ContainerSpace(value)
    if isinstance(value, ARRAY_TYPES):
        return (ComplexArraySpace if np.iscomplexobj(value) else ArraySpace)(value)
    raise TypeError(f"Can't find vector space for value {value!r} of type {type(value)}. "
                    f"Valid types are arrays, floats, complex numbers and containers of them.")

