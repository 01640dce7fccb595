"""scipy.special's ufuncs and tapegen's polygamma and logsumexp (none when scipy is missing).

Each domain keeps its function smooth and real around the sample: ``erfinv``
inside (-1, 1), gamma-family arguments positive and away from the poles, ``y0``
and ``y1`` positive, Bessel functions of fractional order at positive ``x``.
Orders are constants of each case: they get no gradient.
"""

import numpy as np

import tracer.special
from gradient_table.cases import (NONZERO, POSITIVE, REAL, UNIT, BINARY_SHAPES, binary, fixed,
                                  reduction, unary, uniform)

try:
    from scipy import special
except ModuleNotFoundError:
    special = None


def rows():
    """The scipy.special cases, or none without scipy."""
    if special is None:
        return []
    broadcast = BINARY_SHAPES[1:5]
    logsumexp_axes = [((5,), None), ((2, 3, 4), 1), ((2, 3, 4), (0, 2))]
    table = [
        unary("special.erf", special.erf), unary("special.erfc", special.erfc),
        unary("special.erfinv", special.erfinv, UNIT),
        unary("special.erfcinv", special.erfcinv, uniform(0.1, 1.9)),
        unary("special.ndtr", special.ndtr),
        unary("special.log_ndtr", special.log_ndtr, uniform(-6.0, 2.0)),
        unary("special.gammaln", special.gammaln, POSITIVE),
        unary("special.gamma", special.gamma, uniform(0.5, 3.0)),
        unary("special.digamma", special.digamma, POSITIVE),
        unary("special.psi", special.psi, POSITIVE),
        unary("special.rgamma", special.rgamma, POSITIVE),
        unary("special.polygamma", lambda x: tracer.special.polygamma(2, x), POSITIVE),
        fixed("special.polygamma-orders",
              lambda x: tracer.special.polygamma(np.array([0, 1, 3]), x), ((2, 1), POSITIVE)),
        binary("special.beta", special.beta, POSITIVE, shapes=broadcast),
        binary("special.betaln", special.betaln, POSITIVE, shapes=broadcast),
        unary("special.expit", special.expit),
        unary("special.logit", special.logit, uniform(0.1, 0.9)),
        binary("special.xlogy", special.xlogy, NONZERO, POSITIVE, shapes=broadcast),
        binary("special.xlog1py", special.xlog1py, NONZERO, uniform(-0.5, 2.0), shapes=broadcast),
        unary("special.j0", special.j0), unary("special.j1", special.j1),
        unary("special.y0", special.y0, POSITIVE), unary("special.y1", special.y1, POSITIVE),
        unary("special.jv", lambda x: special.jv(2, x)),
        fixed("special.jv-fractional-orders",
              lambda x: special.jv(np.array([0.5, 1.0, 2.5]), x), ((2, 1), POSITIVE)),
        unary("special.i0", special.i0), unary("special.i1", special.i1),
        unary("special.iv", lambda x: special.iv(1.5, x), POSITIVE),
        # An integer order is defined for negative x, where sign(x) enters ive's rule.
        unary("special.ive", lambda x: special.ive(1, x), NONZERO),
        fixed("special.ive-fractional-orders",
              lambda x: special.ive(np.array([0.5, 2.5]), x), ((3, 1), POSITIVE)),
        reduction("special.logsumexp",
                  lambda x, a, k: tracer.special.logsumexp(x, axis=a, keepdims=k),
                  axes=logsumexp_axes),
        fixed("special.logsumexp-weights", lambda x, b: tracer.special.logsumexp(x, axis=-1, b=b),
              ((2, 3), REAL), ((3,), POSITIVE)),
    ]
    return [case for row in table for case in row]
