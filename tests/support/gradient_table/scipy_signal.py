"""``tracer.scipy.signal.convolve`` (none when scipy is missing).

Each mode in one and two dimensions, the second input longer along some axis than the
first (so that either input is the one laid out as shifts), then autograd's form: a
convolved pair of axes beside kept ones, and one beside a contracted pair.
"""

from gradient_table.cases import REAL, fixed

try:
    import scipy  # noqa: F401  (what tracer.scipy needs)
except ModuleNotFoundError:
    scipy = None


def rows():
    """The convolution cases, or none without scipy."""
    if scipy is None:
        return []
    from tracer.scipy.signal import convolve

    def plain(mode):
        return lambda a, b: convolve(a, b, mode)

    table = [
        fixed("signal.convolve-full-1d", plain("full"), ((4,), REAL), ((3,), REAL)),
        fixed("signal.convolve-valid-1d", plain("valid"), ((3,), REAL), ((5,), REAL)),
        fixed("signal.convolve-same-1d", plain("same"), ((5,), REAL), ((4,), REAL)),
        fixed("signal.convolve-full-2d", plain("full"), ((3, 2), REAL), ((2, 3), REAL)),
        fixed("signal.convolve-valid-2d", plain("valid"), ((4, 3), REAL), ((2, 3), REAL)),
        fixed("signal.convolve-same-2d", plain("same"), ((2, 4), REAL), ((3, 2), REAL)),
        fixed("signal.convolve-axes",
              lambda a, b: convolve(a, b, axes=([1], [0])), ((2, 3), REAL), ((2, 2), REAL)),
        fixed("signal.convolve-dot_axes",
              lambda a, b: convolve(a, b, "valid", axes=([1], [1]), dot_axes=([0], [0])),
              ((2, 4), REAL), ((2, 3), REAL)),
    ]
    return [case for row in table for case in row]
