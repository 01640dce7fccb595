"""The primitives of the IR, one module per family.

Importing this package defines them all; ``ir.primitive.PRIMITIVES`` maps
each name to its definition.
"""

from ir.primitives import (broadcast, calls, control, elementwise, fft, linalg,
                           linalg_decompositions, reductions, shape)

try:  # scipy is optional: its special functions are primitives only when it is installed
    from ir.primitives import special
except ModuleNotFoundError:
    special = None

__all__ = ["broadcast", "calls", "control", "elementwise", "fft", "linalg", "linalg_decompositions",
           "reductions", "shape", "special"]
