"""Primitives that modules below the primitives apply, set here, at import, in one place.

Python operators (``ir.operators``), the shared machinery of batching rules
(``ir.autodiff.batching``), ``sum_to``'s batching rule (``broadcast``) and the passes over
scans (``ir.loops.passes``) apply or recognise primitives whose definitions build
on them, so they cannot import them.  Each names what it needs as a module
attribute, and this module sets them once the primitives are defined.
"""

from ir.autodiff import batching
from ir.loops import passes as loop_passes
from ir.operators import ArrayOperators, binary_operators, unary_operator
from ir.primitives import broadcast
from ir.primitives.broadcast import broadcast_to
from ir.primitives.elementwise import (absolute, add, bitwise_and, bitwise_or, bitwise_xor,
                                       divide, equal, floor_divide, greater, greater_equal,
                                       invert, less, less_equal, multiply, negative,
                                       not_equal, positive, power, remainder, subtract)
from ir.primitives.linalg import embed_diagonal, matmul
from ir.primitives.loops import scan
from ir.primitives.shape import getitem, reshape, stack, transpose

ArrayOperators.__add__, ArrayOperators.__radd__ = binary_operators(add)
ArrayOperators.__sub__, ArrayOperators.__rsub__ = binary_operators(subtract)
ArrayOperators.__mul__, ArrayOperators.__rmul__ = binary_operators(multiply)
ArrayOperators.__truediv__, ArrayOperators.__rtruediv__ = binary_operators(divide)
ArrayOperators.__floordiv__, ArrayOperators.__rfloordiv__ = binary_operators(floor_divide)
ArrayOperators.__mod__, ArrayOperators.__rmod__ = binary_operators(remainder)
ArrayOperators.__pow__, ArrayOperators.__rpow__ = binary_operators(power)
ArrayOperators.__matmul__, ArrayOperators.__rmatmul__ = binary_operators(matmul)
ArrayOperators.__and__, ArrayOperators.__rand__ = binary_operators(bitwise_and)
ArrayOperators.__or__, ArrayOperators.__ror__ = binary_operators(bitwise_or)
ArrayOperators.__xor__, ArrayOperators.__rxor__ = binary_operators(bitwise_xor)
ArrayOperators.__lt__ = binary_operators(less)[0]
ArrayOperators.__le__ = binary_operators(less_equal)[0]
ArrayOperators.__gt__ = binary_operators(greater)[0]
ArrayOperators.__ge__ = binary_operators(greater_equal)[0]
ArrayOperators.__eq__ = binary_operators(equal)[0]
ArrayOperators.__ne__ = binary_operators(not_equal)[0]
ArrayOperators.__neg__ = unary_operator(negative)
ArrayOperators.__pos__ = unary_operator(positive)
ArrayOperators.__abs__ = unary_operator(absolute)
ArrayOperators.__invert__ = unary_operator(invert)

batching.broadcast_to = broadcast_to
batching.embed_diagonal = embed_diagonal
batching.getitem = getitem
batching.reshape = reshape
batching.stack = stack
batching.transpose = transpose

broadcast.reshape = reshape

loop_passes.scan = scan
