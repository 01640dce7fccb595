"""How numpy's API on tensors maps to ``ir`` primitives: scipy.special's ufuncs, recorded when scipy is installed (scipy stays optional)."""

FUNCTIONS = {}
UFUNCS = {}
