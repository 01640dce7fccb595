"""The beta distribution, as ``scipy.stats.beta`` (its density; its distribution function
needs the regularised incomplete beta function)."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import on_support


def logpdf(x, a, b, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return on_support((y > 0) & (y < 1), y, 0.5,
                      lambda y: sc.xlogy(a - 1, y) + sc.xlog1py(b - 1, -y) - sc.betaln(a, b)
                      - np.log(scale))


def pdf(x, a, b, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, a, b, loc, scale))
