"""How numpy's API on tensors maps to ``ir`` primitives: ``outer``, a product of reshaped
tensors.

numpy's products that are one primitive each (``dot``, ``inner``, ``matmul``,
``tensordot`` and their ``np.linalg`` spellings) are bound beside their
definitions in ``ir.primitives.linalg``.
"""

import numpy as np

from ir.bindings import no_extras


def _outer(a, b, out=None):
    no_extras("outer", out=out)
    return np.reshape(a, (-1, 1)) * np.reshape(b, (1, -1))


FUNCTIONS = {np.outer: _outer}
