"""How numpy's API on tensors maps to ``ir`` primitives: functions that return integer
positions.

Each of them (argsort, argpartition, nonzero, flatnonzero, searchsorted) reads
numpy's arguments into one primitive, so all are bound beside their primitives
in ``ir.primitives.reductions``, and the table here is empty.
"""

FUNCTIONS = {}
