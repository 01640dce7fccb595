"""Python operators for array-like value kinds (tracer tensors, graph symbols, batches).

The operators here only pick the primitive; applying it dispatches on the
kinds of both operands (``ir.primitive.register_value_kind``), so
``symbol * batch`` is a batch whichever operand is on the left.  The
primitives they apply build on value kinds (``ir.autodiff.batching``) that have
operators, so they cannot be imported here: ``ir.primitive_references`` gives
``ArrayOperators`` its operators once the primitives are defined.
"""

from ir.primitive import VALUE_KINDS

_NO_PARAMS = {}


def binary_operators(prim):
    """The operator applying ``prim`` and its reflected form (``__add__``, ``__radd__``)."""
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


def unary_operator(prim):
    """The operator applying ``prim`` to its one operand (``__neg__``)."""
    def op(self):
        return VALUE_KINDS[self.__class__][1](prim, (self,), _NO_PARAMS)

    return op


class ArrayOperators:
    """Arithmetic, matmul, comparison and bitwise operators, each one primitive (set by
    ``ir.primitive_references``)."""

    __slots__ = ()
    __hash__ = None
