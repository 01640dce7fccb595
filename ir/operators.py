"""Python operators for array-like value kinds (tracer tensors, graph symbols, batches).

The operators here only pick the primitive; applying it dispatches on the
kinds of both operands (``ir.primitive.register_value_kind``), so
``symbol * batch`` is a batch whichever operand is on the left.
"""

from ir.primitives.elementwise import (
    absolute, add, bitwise_and, bitwise_or, bitwise_xor, divide, equal, floor_divide, greater,
    greater_equal, invert, less, less_equal, multiply, negative, not_equal, positive, power,
    remainder, subtract)
from ir.primitive import VALUE_KINDS
from ir.primitives.linalg import matmul

_NO_PARAMS = {}


def _binary(prim):
    # Applied by the kind of ``self`` unless the other operand's kind outranks it (what
    # ``Primitive.__call__`` decides, inlined: operators are the tracer's hot path).
    def forward(self, other):
        mine, theirs = VALUE_KINDS[self.__class__], VALUE_KINDS.get(other.__class__)
        kind = theirs if theirs is not None and theirs[0] > mine[0] else mine
        return kind[1](prim, (self, other), _NO_PARAMS)

    def reflected(self, other):
        mine, theirs = VALUE_KINDS[self.__class__], VALUE_KINDS.get(other.__class__)
        kind = theirs if theirs is not None and theirs[0] > mine[0] else mine
        return kind[1](prim, (other, self), _NO_PARAMS)

    return forward, reflected


def _unary(prim):
    def op(self):
        return VALUE_KINDS[self.__class__][1](prim, (self,), _NO_PARAMS)

    return op


class ArrayOperators:
    """Arithmetic, matmul, comparison and bitwise operators, each one primitive."""

    __slots__ = ()

    __add__, __radd__ = _binary(add)
    __sub__, __rsub__ = _binary(subtract)
    __mul__, __rmul__ = _binary(multiply)
    __truediv__, __rtruediv__ = _binary(divide)
    __floordiv__, __rfloordiv__ = _binary(floor_divide)
    __mod__, __rmod__ = _binary(remainder)
    __pow__, __rpow__ = _binary(power)
    __matmul__, __rmatmul__ = _binary(matmul)
    __and__, __rand__ = _binary(bitwise_and)
    __or__, __ror__ = _binary(bitwise_or)
    __xor__, __rxor__ = _binary(bitwise_xor)
    __lt__, _ = _binary(less)
    __le__, _ = _binary(less_equal)
    __gt__, _ = _binary(greater)
    __ge__, _ = _binary(greater_equal)
    __eq__, _ = _binary(equal)
    __ne__, _ = _binary(not_equal)
    del _
    __neg__ = _unary(negative)
    __pos__ = _unary(positive)
    __abs__ = _unary(absolute)
    __invert__ = _unary(invert)
    __hash__ = None
