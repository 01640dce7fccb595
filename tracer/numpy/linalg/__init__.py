"""How numpy's API on tensors maps to ``ir`` primitives: linear algebra, one module per
family of functions.

The modules here hold the compositions on tensors: ``np.linalg``'s powers,
least squares and condition numbers (``decompositions``), norms
(``norms``), ``einsum`` (``einsum``) and the products, traces and
numpy 2 array-API spellings made of other numpy functions
(``matrix_products``).  The functions that are one primitive, or a choice
among a family's primitives (inverses, solves, decompositions, diagonals,
triangles, ``inner``), are bound beside their definitions in
``ir.primitives.linalg``, ``linalg_decompositions`` and ``linalg_spectral``, under
this family's topic (``ir.bindings.LINEAR_ALGEBRA``).  Complex matrices are
welcome where the rules hold for them (``inv``, ``solve``, ``det``, ``slogdet``,
``cholesky``, ``eig``, ``eigh``, ``svd``, the norms and the products); ``qr``,
``pinv``, ``lstsq`` and ``cond`` refuse them.
"""

from tracer.numpy.linalg import decompositions, einsum, matrix_products, norms
from tracer.numpy.common import merge_tables

FUNCTIONS = merge_tables([family.FUNCTIONS for family in (
    decompositions, norms, einsum, matrix_products)])
UFUNCS = {}
