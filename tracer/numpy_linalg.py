"""How numpy's API on tensors maps to ``ir`` primitives: linear algebra, one module per
family of functions.

``np.linalg`` (inverses, solves, determinants, decompositions, powers:
``numpy_decompositions``; norms: ``numpy_norms``), ``einsum`` (``numpy_einsum``)
and the matrix helpers with numpy 2's array-API spellings
(``numpy_matrix_products``).  Complex matrices are welcome where the rules
hold for them (``inv``, ``solve``, ``det``, ``eig`` and the products); the
other decompositions and the norms refuse them.
"""

from tracer import numpy_decompositions, numpy_einsum, numpy_matrix_products, numpy_norms
from tracer.numpy_common import merge_tables

FUNCTIONS = merge_tables([family.FUNCTIONS for family in (
    numpy_decompositions, numpy_norms, numpy_einsum, numpy_matrix_products)])
UFUNCS = {}
