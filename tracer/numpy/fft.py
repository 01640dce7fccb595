"""How numpy's API on tensors maps to ``ir`` primitives: complex numbers and np.fft.

Only the ufunc ``np.conj`` is mapped here, to ``conjugate``: np.real, np.imag,
np.angle and the transforms read numpy's arguments and apply one primitive, so
they are bound beside their primitives in ``ir.primitives.elementwise`` and
``ir.primitives.fft``.
"""

import numpy as np

from ir.primitives import elementwise as ew

FUNCTIONS = {}
UFUNCS = {np.conjugate: ew.conjugate}
