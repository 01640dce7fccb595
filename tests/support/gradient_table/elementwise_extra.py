"""Elementwise functions beyond the core ufuncs: logaddexp2, sinc, i0, angle conversions."""

import numpy as np

from gradient_table.cases import NONZERO, REAL, binary, signed, unary, uniform

LARGE = signed(18.0, 30.0)
"""Magnitudes on both sides of 20, where i0's derivative changes method."""


def rows():
    """The extra elementwise cases."""
    table = [
        binary("logaddexp2", np.logaddexp2),
        unary("sinc", np.sinc, NONZERO), unary("sinc-small", np.sinc, uniform(-0.4, 0.4)),
        unary("deg2rad", np.deg2rad), unary("rad2deg", np.rad2deg),
        unary("radians", np.radians), unary("degrees", np.degrees),
        unary("i0", np.i0, REAL), unary("i0-large", np.i0, LARGE),
    ]
    return [case for group in table for case in group]
