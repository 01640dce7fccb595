"""The left-skewed Gumbel distribution, as ``scipy.stats.gumbel_l``: the mirror image of
``gumbel_r`` (``x`` and ``loc`` negated, lower and upper tails swapped)."""

from tracer.scipy.stats import gumbel_r


def logpdf(x, loc=0.0, scale=1.0):
    return gumbel_r.logpdf(-x, -loc, scale)


def pdf(x, loc=0.0, scale=1.0):
    return gumbel_r.pdf(-x, -loc, scale)


def cdf(x, loc=0.0, scale=1.0):
    return gumbel_r.sf(-x, -loc, scale)


def logcdf(x, loc=0.0, scale=1.0):
    return gumbel_r.logsf(-x, -loc, scale)


def sf(x, loc=0.0, scale=1.0):
    return gumbel_r.cdf(-x, -loc, scale)


def logsf(x, loc=0.0, scale=1.0):
    return gumbel_r.logcdf(-x, -loc, scale)


def ppf(q, loc=0.0, scale=1.0):
    return -gumbel_r.isf(q, -loc, scale)


def isf(q, loc=0.0, scale=1.0):
    return -gumbel_r.ppf(q, -loc, scale)
