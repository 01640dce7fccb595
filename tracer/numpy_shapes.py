"""How numpy's API on tensors maps to ``ir`` primitives: shapes, scans and order
statistics beyond the core set (pad, tile, cumsum, sort, median, ...), one module per
family of functions.

Most functions there are compositions of other numpy functions on tensors (a
flip is a reversed slice, a tile a broadcast and a reshape, a median a sort
and an index), so their derivatives of every order come from those pieces.
"""

from tracer import (numpy_averages, numpy_constructors, numpy_differences, numpy_joining,
                    numpy_order_statistics, numpy_padding, numpy_reordering)
from tracer.numpy_common import merge_tables

FUNCTIONS = merge_tables([family.FUNCTIONS for family in (
    numpy_padding, numpy_reordering, numpy_joining, numpy_constructors, numpy_differences,
    numpy_order_statistics, numpy_averages)])
UFUNCS = {}
REFUSED = numpy_constructors.REFUSED
