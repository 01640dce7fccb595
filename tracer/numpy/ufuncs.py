"""Which ufuncs map to which primitives, read off the primitives themselves: a primitive
whose numpy implementation is a ufunc is what that ufunc applies on tensors.

Only numpy's second names for a ufunc (``np.radians`` for ``np.deg2rad``) are listed by
hand, so a primitive added to ``ir`` with a ufunc implementation is mapped at once.
"""

import inspect

import numpy as np

from ir.primitive import PRIMITIVES
from ir.primitives import elementwise as ew
from tracer.numpy import fft


def ufunc_primitives(namespace):
    """``{ufunc: primitive}`` for every primitive implemented by a ufunc of ``namespace``
    (scipy's, with SCIPY_ARRAY_API=1, wrapped in a function that dispatches)."""
    return {prim.impl: prim for prim in PRIMITIVES.values()
            if isinstance(prim.impl, np.ufunc)
            and _unwrapped(getattr(namespace, prim.impl.__name__, None)) is prim.impl}


def _unwrapped(function):
    return None if function is None else inspect.unwrap(function)


ALIASES = {np.radians: ew.deg2rad, np.degrees: ew.rad2deg}
"""numpy ufuncs that are other ufuncs under another name: distinct objects, one primitive."""

UFUNCS = {ufunc: prim for ufunc, prim in ufunc_primitives(np).items()
          if ufunc not in fft.UFUNCS} | ALIASES
"""numpy's ufuncs on tensors, beyond the families' own (``np.conjugate`` is with the FFT)."""
