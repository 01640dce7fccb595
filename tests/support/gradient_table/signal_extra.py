"""numpy's convolve, correlate, trapezoid and interp, and ``tracer.scipy.signal``'s
correlate, convolve2d, correlate2d and fftconvolve (those without scipy when it is
missing).

The second input of a 1-D convolution is longer than the first in some rows, so that
numpy's swap of its inputs is taken.  ``interp`` queries between well-separated knots
(``DISTINCT``), so no query sits on a knot, where the derivative by ``x`` jumps.
"""

import numpy as np

from gradient_table.cases import DISTINCT, DISTINCT_2, REAL, fixed

try:
    import scipy  # noqa: F401  (what tracer.scipy needs)
except ModuleNotFoundError:
    scipy = None


def _numpy_rows():
    def mode(function, name):
        return lambda a, v: function(a, v, name)

    return [
        fixed("convolve-full", mode(np.convolve, "full"), ((4,), REAL), ((3,), REAL)),
        fixed("convolve-same", mode(np.convolve, "same"), ((3,), REAL), ((4,), REAL)),
        fixed("convolve-valid", mode(np.convolve, "valid"), ((2,), REAL), ((4,), REAL)),
        fixed("correlate-valid", mode(np.correlate, "valid"), ((5,), REAL), ((3,), REAL)),
        fixed("correlate-same", mode(np.correlate, "same"), ((2,), REAL), ((3,), REAL)),
        fixed("correlate-full", mode(np.correlate, "full"), ((3,), REAL), ((4,), REAL)),
        fixed("trapezoid", lambda y: np.trapezoid(y, dx=0.5, axis=0), ((3, 2), REAL)),
        fixed("trapezoid-x", lambda y, x: np.trapezoid(y, x), ((2, 4), REAL), ((4,), REAL)),
        fixed("interp", lambda x, fp: np.interp(x, np.linspace(-1.0, 1.0, 4), fp, right=0.5),
              ((5,), DISTINCT_2), ((4,), REAL)),
        fixed("interp-xp", lambda x, xp, fp: np.interp(x, np.sort(xp), fp),
              ((3,), DISTINCT_2), ((4,), DISTINCT), ((4,), REAL)),
    ]


def _scipy_rows():
    from tracer.scipy import signal

    return [
        fixed("signal.correlate-same-2d", lambda a, b: signal.correlate(a, b, "same"),
              ((3, 2), REAL), ((2, 2), REAL)),
        fixed("signal.convolve2d-fill", lambda a, b: signal.convolve2d(a, b, fillvalue=0.5),
              ((2, 3), REAL), ((2, 2), REAL)),
        fixed("signal.correlate2d-same", lambda a, b: signal.correlate2d(a, b, "same"),
              ((3, 3), REAL), ((2, 2), REAL)),
        fixed("signal.fftconvolve-axes",
              lambda a, b: signal.fftconvolve(a, b, "valid", axes=1),
              ((2, 4), REAL), ((2, 3), REAL)),
    ]


def rows():
    """The cases, scipy's left out when it is missing."""
    table = _numpy_rows() + (_scipy_rows() if scipy is not None else [])
    return [case for row in table for case in row]
