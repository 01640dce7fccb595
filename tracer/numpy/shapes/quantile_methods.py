"""Where each of numpy's quantile methods reads the sorted samples: the positions of the
samples it takes and, for a method that interpolates, the weight of the later one.

numpy's thirteen methods (Hyndman and Fan's nine, and 'lower', 'higher',
'nearest' and 'midpoint') each place a virtual index among ``n`` sorted
samples.  The discrete ones round it to one position; the others take the
samples on either side and weigh them by its fraction, which some methods
change ('midpoint', 'averaged_inverted_cdf').  The formulas are numpy's,
operation for operation, so positions and weights are numpy's to the last bit.

They are written with numpy functions and operators that work alike on plain
arrays and on tensors: with a static ``n`` and a plain ``q`` the positions are
plain arrays (constant indices in a graph); with a symbolic ``n`` and ``q`` a
tensor they are computed in the trace from the size, so generated code
computes them from its arguments.
"""

import numpy as np

from tracer.core import is_traced


def _lower(n, q):
    return np.floor(q * (n - 1)).astype(np.intp)


def _higher(n, q):
    return np.ceil(q * (n - 1)).astype(np.intp)


def _nearest(n, q):
    return np.round(q * (n - 1)).astype(np.intp)


def _boundary(index, at_knot):
    """The position before ``index`` where ``at_knot(fraction, index)`` holds, else the one
    after, never below 0: the discrete Hyndman and Fan methods."""
    previous = np.floor(index)
    fraction = index - previous
    chosen = np.where(at_knot(fraction, index), previous, previous + 1).astype(np.intp)
    return np.maximum(chosen, 0)


def _inverted_cdf(n, q):
    return _boundary(q * n - 1, lambda fraction, _: fraction == 0)


def _closest_observation(n, q):
    """The nearest sample, the even-numbered one (counting from 1) at a tie."""
    return _boundary(q * n - 1 - 0.5,
                     lambda fraction, index: (fraction == 0) & (np.floor(index) % 2 == 1))


def _hyndman_fan(alpha, beta):
    """The virtual index of the continuous methods with plotting positions ``alpha``, ``beta``."""
    return lambda n, q: q * n + (alpha + q * (1 - alpha - beta)) - 1


def _midpoint(n, q):
    virtual = q * (n - 1)
    return 0.5 * (np.floor(virtual) + np.ceil(virtual))


def _midpoint_weight(fraction, virtual):
    """Half, or nothing where the index is a whole position."""
    return np.where(virtual % 1 == 0, 0.0, 0.5)


def _averaged_weight(fraction, virtual):
    """All of the later sample, or half of each where the index is a whole position."""
    return np.where(fraction == 0, 0.5, 1.0)


def _as_is(fraction, virtual):
    return fraction


DISCRETE = {"inverted_cdf": _inverted_cdf, "closest_observation": _closest_observation,
            "lower": _lower, "higher": _higher, "nearest": _nearest}
"""Methods that take one sample: ``q`` and ``n`` to its position."""

INTERPOLATED = {
    "averaged_inverted_cdf": (lambda n, q: q * n - 1, _averaged_weight),
    "interpolated_inverted_cdf": (_hyndman_fan(0, 1), _as_is),
    "hazen": (_hyndman_fan(0.5, 0.5), _as_is),
    "weibull": (_hyndman_fan(0, 0), _as_is),
    "linear": (lambda n, q: q * (n - 1), _as_is),
    "median_unbiased": (_hyndman_fan(1 / 3.0, 1 / 3.0), _as_is),
    "normal_unbiased": (_hyndman_fan(3 / 8.0, 3 / 8.0), _as_is),
    "midpoint": (_midpoint, _midpoint_weight),
}
"""Methods that weigh two samples: ``q`` and ``n`` to the virtual index, and the index's
fraction (and the index) to the weight of the later sample."""

METHODS = tuple(INTERPOLATED) + tuple(DISCRETE)


def sample_positions(method, n, q):
    """``(previous, next, weight)`` for ``method`` over ``n`` samples at ``q`` (plain, or
    tensors when ``n`` is symbolic), or ``(position, None, None)`` for the methods that
    take one sample, as for 'linear' at integer ``q``.  Positions are kept within the
    samples, so an index past either end takes the end sample twice."""
    if method in DISCRETE:
        return _plain(DISCRETE[method](n, q)), None, None
    index_of, weight_of = INTERPOLATED[method]
    virtual = _plain(index_of(n, q))
    if method == "linear" and virtual.dtype.kind in "iu":
        return virtual, None, None
    floor = np.floor(virtual)
    previous = np.minimum(np.maximum(floor, 0), n - 1)
    following = np.minimum(np.maximum(floor + 1, 0), n - 1)
    weight = np.astype(_plain(weight_of(virtual - previous, virtual)), virtual.dtype)
    return previous.astype(np.intp), following.astype(np.intp), weight


def _plain(value):
    """``value`` as an array where numpy computed a numpy scalar; tensors as they are."""
    return value if is_traced(value) else np.asarray(value)
