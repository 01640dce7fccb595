"""The left-skewed Gumbel distribution, as ``scipy.stats.gumbel_l``: the mirror image of
``gumbel_r`` (``x`` and ``loc`` negated, lower and upper tails swapped)."""

from tracer.scipy.stats.continuous.gumbel_r import (cdf as gumbel_r_cdf, isf as gumbel_r_isf,
                                         logcdf as gumbel_r_logcdf, logpdf as gumbel_r_logpdf,
                                         logsf as gumbel_r_logsf, pdf as gumbel_r_pdf,
                                         ppf as gumbel_r_ppf, sf as gumbel_r_sf)
from tracer.scipy.stats._support import like_scipy


@like_scipy
def logpdf(x, loc=0.0, scale=1.0):
    return gumbel_r_logpdf(-x, -loc, scale)


@like_scipy
def pdf(x, loc=0.0, scale=1.0):
    return gumbel_r_pdf(-x, -loc, scale)


@like_scipy
def cdf(x, loc=0.0, scale=1.0):
    return gumbel_r_sf(-x, -loc, scale)


@like_scipy
def logcdf(x, loc=0.0, scale=1.0):
    return gumbel_r_logsf(-x, -loc, scale)


@like_scipy
def sf(x, loc=0.0, scale=1.0):
    return gumbel_r_cdf(-x, -loc, scale)


@like_scipy
def logsf(x, loc=0.0, scale=1.0):
    return gumbel_r_logcdf(-x, -loc, scale)


@like_scipy
def ppf(q, loc=0.0, scale=1.0):
    return -gumbel_r_isf(q, -loc, scale)


@like_scipy
def isf(q, loc=0.0, scale=1.0):
    return -gumbel_r_ppf(q, -loc, scale)
