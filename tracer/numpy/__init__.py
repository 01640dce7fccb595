"""numpy's API on tensors: numpy's protocols, and how each numpy function, ufunc and
ndarray method maps to ``ir`` primitives, one module per family of functions.
"""
