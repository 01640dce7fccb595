"""How numpy's API on tensors maps to ``ir`` primitives: Linear algebra: np.linalg, einsum and the matrix helpers (trace, diag, triu, ...)."""

FUNCTIONS = {}
UFUNCS = {}
