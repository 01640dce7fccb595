"""The left-skewed Gumbel distribution, as ``scipy.stats.gumbel_l``: the mirror image of
``gumbel_r`` (``x`` and ``loc`` negated, lower and upper tails swapped)."""

from tracer.scipy.stats.continuous import gumbel_r
from tracer.scipy.stats._support import like_scipy


@like_scipy
def logpdf(x, loc=0.0, scale=1.0):
    return gumbel_r.logpdf(-x, -loc, scale)


@like_scipy
def pdf(x, loc=0.0, scale=1.0):
    return gumbel_r.pdf(-x, -loc, scale)


@like_scipy
def cdf(x, loc=0.0, scale=1.0):
    return gumbel_r.sf(-x, -loc, scale)


@like_scipy
def logcdf(x, loc=0.0, scale=1.0):
    return gumbel_r.logsf(-x, -loc, scale)


@like_scipy
def sf(x, loc=0.0, scale=1.0):
    return gumbel_r.cdf(-x, -loc, scale)


@like_scipy
def logsf(x, loc=0.0, scale=1.0):
    return gumbel_r.logcdf(-x, -loc, scale)


@like_scipy
def ppf(q, loc=0.0, scale=1.0):
    return -gumbel_r.isf(q, -loc, scale)


@like_scipy
def isf(q, loc=0.0, scale=1.0):
    return -gumbel_r.ppf(q, -loc, scale)
