"""How numpy's API on tensors maps to ``ir`` primitives: linear algebra, one module per
family of functions.

The modules here hold the compositions on tensors: ``np.linalg``'s powers,
least squares and condition numbers (``numpy_decompositions``), norms
(``numpy_norms``), ``einsum`` (``numpy_einsum``) and the products, traces and
numpy 2 array-API spellings made of other numpy functions
(``numpy_matrix_products``).  The functions that are one primitive, or a choice
among a family's primitives (inverses, solves, decompositions, diagonals,
triangles, ``inner``), are bound beside their definitions in
``ir.primitives.linalg``, ``linalg_decompositions`` and ``linalg_spectral``; the
table lists them too, with those bindings, so that the list of supported
functions (``tracer.coverage``) keeps them in this family.  Complex matrices are
welcome where the rules hold for them (``inv``, ``solve``, ``det``, ``eig`` and
the products); the other decompositions and the norms refuse them.
"""

import numpy as np

from ir.bindings import NUMPY_FUNCTIONS
from tracer import numpy_decompositions, numpy_einsum, numpy_matrix_products, numpy_norms
from tracer.numpy_common import merge_tables

_BOUND_IN_IR = (
    np.inner, np.diag, np.diagonal, np.triu, np.tril,
    np.linalg.diagonal, np.linalg.matmul, np.linalg.tensordot,
    np.linalg.inv, np.linalg.solve, np.linalg.det, np.linalg.slogdet, np.linalg.pinv,
    np.linalg.cholesky, np.linalg.qr, np.linalg.eigh, np.linalg.eigvalsh, np.linalg.eig,
    np.linalg.eigvals, np.linalg.svd, np.linalg.svdvals,
)

FUNCTIONS = merge_tables([family.FUNCTIONS for family in (
    numpy_decompositions, numpy_norms, numpy_einsum, numpy_matrix_products)]
    + [{f: NUMPY_FUNCTIONS[f] for f in _BOUND_IN_IR}])
UFUNCS = {}
