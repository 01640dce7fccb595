"""Which ufuncs map to which primitives, read off the primitives themselves: a primitive
whose numpy implementation is a ufunc is what that ufunc applies on tensors.

Only numpy's second names for a ufunc (``np.radians`` for ``np.deg2rad``) are listed by
hand, so a primitive added to ``ir`` with a ufunc implementation is mapped at once.
"""

import numpy as np

from ir.primitive import PRIMITIVES
from ir.primitives import elementwise as ew
from tracer import numpy_fft


def ufunc_primitives(namespace):
    """``{ufunc: primitive}`` for every primitive implemented by a ufunc of ``namespace``."""
    return {prim.impl: prim for prim in PRIMITIVES.values()
            if isinstance(prim.impl, np.ufunc)
            and getattr(namespace, prim.impl.__name__, None) is prim.impl}


ALIASES = {np.radians: ew.deg2rad, np.degrees: ew.rad2deg}
"""numpy ufuncs that are other ufuncs under another name: distinct objects, one primitive."""

UFUNCS = {ufunc: prim for ufunc, prim in ufunc_primitives(np).items()
          if ufunc not in numpy_fft.UFUNCS} | ALIASES
"""numpy's ufuncs on tensors, beyond the families' own (``np.conjugate`` is with the FFT)."""
