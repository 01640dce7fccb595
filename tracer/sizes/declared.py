"""Symbolic sizes in traced code: the axes a user declares symbolic, and ``Dim``.

``tracer.constant(x, dims=("batch", None))`` declares axis 0 of ``x`` to have
the symbolic size ``batch``.  Reading a shape on such a tensor, or on one
recorded from it, gives ``Dim`` objects: integers at the traced sizes that also
carry their expression (``ir.sizes.dims.Size``), so code generated from the trace
holds for every size.  Arithmetic on dims gives dims; a question about one (a
comparison, a truth test) is answered at the traced sizes and kept as a guard
(``ir.sizes.guards``) by every tape recording; turning one into a plain int fixes
its size, with a guard and a warning at the user's line.
"""

import math
import operator
from keyword import iskeyword

import numpy as np

from ir.sizes.dims import Size, symbol
from ir.sizes.guards import Guard, known_answer
from ir.sizes.traced import TracedSize
from tracer.sites import site_location, user_site, warn_at_user_line
from tracer.state import symbolic, thread_state
from tracer.sizes.recorded import trace_of


class Dim(TracedSize):
    """A size of a tensor with symbolic axes: ``value`` at the traced sizes, ``size`` its
    expression.  Behaves as the integer ``value`` in arithmetic with integers and dims
    (``+ - * // %``), in comparisons (each a guard) and as an index (a guard fixing it)."""

    __slots__ = ("value", "size")

    def __init__(self, value, size):
        self.value = value
        self.size = size

    # --- arithmetic: dims ------------------------------------------------------------

    def _combine(self, other, op, reflected=False):
        if isinstance(other, Dim):
            pair = (self.value, other.value), (self.size, other.size)
        elif isinstance(other, int) and not isinstance(other, bool):
            pair = (self.value, other), (self.size, other)
        elif isinstance(other, float):  # a float of a size is a plain number
            return op(other, float(self)) if reflected else op(float(self), other)
        else:
            return NotImplemented
        (a, b), (x, y) = pair
        return dim(op(b, a), op(y, x)) if reflected else dim(op(a, b), op(x, y))

    def __add__(self, other):
        return self._combine(other, operator.add)

    def __radd__(self, other):
        return self._combine(other, operator.add, True)

    def __sub__(self, other):
        return self._combine(other, operator.sub)

    def __rsub__(self, other):
        return self._combine(other, operator.sub, True)

    def __mul__(self, other):
        return self._combine(other, operator.mul)

    def __rmul__(self, other):
        return self._combine(other, operator.mul, True)

    def __floordiv__(self, other):
        return self._combine(other, operator.floordiv)

    def __rfloordiv__(self, other):
        return self._combine(other, operator.floordiv, True)

    def __mod__(self, other):
        return self._combine(other, operator.mod)

    def __rmod__(self, other):
        return self._combine(other, operator.mod, True)

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    def __neg__(self):
        return dim(-self.value, -self.size)

    def __pos__(self):
        return self

    # --- questions: guards -----------------------------------------------------------

    def _decide(self, relation, other):
        if isinstance(other, Dim):
            right, right_value = other.size, other.value
        elif isinstance(other, int) and not isinstance(other, bool):
            right, right_value = other, other
        elif isinstance(other, float) and math.isfinite(other):
            relation, right = _integer_bound(relation, other)
            right_value = right
            if right is None:  # (== or != a number no integer equals)
                return relation == "!="
        else:
            return NotImplemented
        known = known_answer(self.size, relation, right)
        if known is not None:
            return known
        holds = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
                 ">": operator.gt, ">=": operator.ge}[relation](self.value, right_value)
        note_guard(Guard(self.size, relation, right, holds, _user_location()))
        return holds

    def __eq__(self, other):
        return self._decide("==", other)

    def __ne__(self, other):
        return self._decide("!=", other)

    def __lt__(self, other):
        return self._decide("<", other)

    def __le__(self, other):
        return self._decide("<=", other)

    def __gt__(self, other):
        return self._decide(">", other)

    def __ge__(self, other):
        return self._decide(">=", other)

    def __hash__(self):
        return hash(self.value)

    def __bool__(self):
        return self._decide("!=", 0)

    # --- conversions: the size fixed -------------------------------------------------

    def __index__(self):
        return self._specialized("an index or a plain int")

    def __int__(self):
        return self._specialized("int()")

    def __float__(self):
        return float(self._specialized("a float"))

    def __truediv__(self, other):
        return self._specialized("a number in a true division") / other

    def __rtruediv__(self, other):
        return other / self._specialized("a number in a true division")

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._specialized("a numpy array"), dtype=dtype)

    def _specialized(self, how):
        """The traced value, with a guard that the size keeps it and a warning that
        generated code now holds for that size only."""
        location = _user_location()
        note_guard(Guard(self.size, "==", self.value, True, location))
        warn_at_user_line(
            f"the symbolic size {self.size} (traced as {self.value}) was used as {how}"
            f"{f' at {location}' if location else ''}: code generated from this trace holds only "
            f"where {self.size} == {self.value}, and checks that on entry. To keep it symbolic, "
            "compute with the size (x.shape[0] in arithmetic with tensors, reshape targets, "
            "slice bounds), make arrays from a tensor (np.zeros_like(x), np.ones((n, 4), "
            "like=x), np.full((n, 4), 0.0, like=x), np.arange(n, like=x), np.eye(n, like=x)), "
            "and use tracer.fori_loop instead of range(n); len(t) always fixes the size, "
            "t.shape[0] does not.")
        return self.value

    # --- text ------------------------------------------------------------------------

    def __repr__(self):
        return f"Dim({self.size}={self.value})"

    def __str__(self):
        return str(self.value)

    def __format__(self, spec):
        return format(self.value, spec)


def _integer_bound(relation, number):
    """``(relation, integer)`` that an integer size meets exactly when it meets
    ``relation number``: ``n < 2.5`` is ``n <= 2``; ``None`` for ``==`` a non-integer."""
    if number.is_integer():
        return relation, int(number)
    if relation in ("==", "!="):
        return relation, None
    return {"<": "<=", "<=": "<=", ">": ">=", ">=": ">="}[relation], \
        math.floor(number) if relation in ("<", "<=") else math.ceil(number)


def dim(value, size):
    """A ``Dim`` for a symbolic ``size``; a plain int where the expression has no symbol."""
    return Dim(value, size) if isinstance(size, Size) else value


def _user_location():
    return site_location(user_site(3))


def note_guard(guard):
    """Keep ``guard`` on every tape recording on this thread: what each records holds
    only where it holds."""
    for recording in thread_state.stack:
        trace_of(recording).guarding.note(guard)


def declare(tensor, dims):
    """Give ``tensor`` the symbolic axes ``dims`` (see ``declared_shape``)."""
    what = f"'{tensor.name}'" if tensor.name else "tracer.constant"
    tensor._dims = declared_shape(dims, tensor._value.shape, what)
    symbolic.declared = True
    return tensor


def declared_shape(dims, shape, what):
    """The shape of a tensor whose axes are declared by ``dims`` (a name per symbolic axis,
    ``None`` per static one): a ``Size`` for each named axis."""
    if isinstance(dims, str) or not isinstance(dims, (tuple, list)):
        raise TypeError(f"{what}: dims must be a tuple with one entry per axis (a name for a "
                        f"symbolic axis, None for a static one), got {dims!r}")
    if len(dims) != len(shape):
        raise ValueError(f"{what}: dims {tuple(dims)!r} has {len(dims)} entries, but the value "
                         f"has {len(shape)} axes {tuple(shape)}")
    out = []
    for axis, (name, size) in enumerate(zip(dims, shape)):
        if name is None:
            out.append(size)
            continue
        if not (isinstance(name, str) and name.isidentifier() and not iskeyword(name)):
            raise ValueError(f"{what}: dims[{axis}] = {name!r} is not a valid name for a size "
                             "(a Python identifier, such as 'batch')")
        if size < 2:
            raise ValueError(f"{what}: axis {axis} ({name}) has size {size}; trace a symbolic "
                             "size at 2 or more: at 1, numpy's broadcasting could not tell it "
                             "from an axis meant to broadcast (the generated code still runs "
                             "at size 1)")
        out.append(symbol(name))
    return tuple(out)


def shape_of(shape, sizes):
    """``Dim``s for the symbolic entries of ``sizes`` (a symbolic shape), ints elsewhere."""
    return tuple(dim(value, size) for value, size in zip(shape, sizes))
