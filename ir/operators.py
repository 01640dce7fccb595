"""Python operators for array-like value kinds (tracer tensors, graph symbols, batches).

The operators here only pick the primitive; applying it dispatches on the
kinds of both operands (``ir.primitive.register_value_kind``), so
``symbol * batch`` is a batch whichever operand is on the left.  They name
primitives rather than import them, so that primitive modules can build on
value kinds (``ir.autodiff.batching``) that have operators.
"""

from ir.primitive import PRIMITIVES, VALUE_KINDS

_NO_PARAMS = {}


def _binary(name):
    # Applied by the kind of ``self`` unless the other operand's kind outranks it (what
    # ``Primitive.__call__`` decides, inlined: operators are the tracer's hot path).
    def forward(self, other):
        mine, theirs = VALUE_KINDS[self.__class__], VALUE_KINDS.get(other.__class__)
        kind = theirs if theirs is not None and theirs[0] > mine[0] else mine
        return kind[1](PRIMITIVES[name], (self, other), _NO_PARAMS)

    def reflected(self, other):
        mine, theirs = VALUE_KINDS[self.__class__], VALUE_KINDS.get(other.__class__)
        kind = theirs if theirs is not None and theirs[0] > mine[0] else mine
        return kind[1](PRIMITIVES[name], (other, self), _NO_PARAMS)

    return forward, reflected


def _unary(name):
    def op(self):
        return VALUE_KINDS[self.__class__][1](PRIMITIVES[name], (self,), _NO_PARAMS)

    return op


class ArrayOperators:
    """Arithmetic, matmul, comparison and bitwise operators, each one primitive."""

    __slots__ = ()

    __add__, __radd__ = _binary("add")
    __sub__, __rsub__ = _binary("subtract")
    __mul__, __rmul__ = _binary("multiply")
    __truediv__, __rtruediv__ = _binary("divide")
    __floordiv__, __rfloordiv__ = _binary("floor_divide")
    __mod__, __rmod__ = _binary("remainder")
    __pow__, __rpow__ = _binary("power")
    __matmul__, __rmatmul__ = _binary("matmul")
    __and__, __rand__ = _binary("bitwise_and")
    __or__, __ror__ = _binary("bitwise_or")
    __xor__, __rxor__ = _binary("bitwise_xor")
    __lt__, _ = _binary("less")
    __le__, _ = _binary("less_equal")
    __gt__, _ = _binary("greater")
    __ge__, _ = _binary("greater_equal")
    __eq__, _ = _binary("equal")
    __ne__, _ = _binary("not_equal")
    del _
    __neg__ = _unary("negative")
    __pos__ = _unary("positive")
    __abs__ = _unary("absolute")
    __invert__ = _unary("invert")
    __hash__ = None
