"""The primitives of the IR, one module per family.

Importing this package defines them all; ``ir.primitive.PRIMITIVES`` maps
each name to its definition.
"""

from ir.primitives import broadcast, control, elementwise, linalg, reductions, shape

__all__ = ["broadcast", "control", "elementwise", "linalg", "reductions", "shape"]
