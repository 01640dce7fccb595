"""How numpy's API on tensors maps to ``ir`` primitives: Shapes, indexing, scans and order statistics beyond the core set (pad, tile, cumsum, sort, median, ...)."""

FUNCTIONS = {}
UFUNCS = {}
