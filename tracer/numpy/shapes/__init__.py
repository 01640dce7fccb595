"""How numpy's API on tensors maps to ``ir`` primitives: shapes, indexing, scans and order
statistics beyond the core set (pad, tile, diff, median, ...), one module per family
of functions.

Most functions there are compositions of other numpy functions on tensors (a
roll is slices joined, a tile a broadcast and a reshape, a median a sort and an
index), so their derivatives of every order come from those pieces.  Those of
the family that apply one primitive (np.sort, np.cumsum, np.flip, ...) are
bound beside it in ``ir.primitives``, under this family's topic
(``ir.bindings.SHAPES``).
"""

from tracer.numpy.shapes import (averages, constructors, differences, joining,
                                 order_statistics, padding, reordering)
from tracer.numpy.common import merge_tables

FUNCTIONS = merge_tables([family.FUNCTIONS for family in (
    padding, reordering, joining, constructors, differences,
    order_statistics, averages)])
UFUNCS = {}
REFUSED = constructors.REFUSED
