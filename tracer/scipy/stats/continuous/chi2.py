"""The chi-squared distribution, as ``scipy.stats.chi2``: a gamma distribution of shape
``df / 2`` and twice the scale."""

import numpy as np

from tracer.scipy.stats.continuous.gamma import (cdf as gamma_cdf, logcdf as gamma_logcdf,
                                      logpdf as gamma_logpdf, logsf as gamma_logsf,
                                      sf as gamma_sf)
from tracer.scipy.stats._support import like_scipy


@like_scipy
def logpdf(x, df, loc=0.0, scale=1.0):
    return gamma_logpdf(x, df / 2, loc, 2 * scale)


@like_scipy
def pdf(x, df, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, df, loc, scale))


@like_scipy
def cdf(x, df, loc=0.0, scale=1.0):
    return gamma_cdf(x, df / 2, loc, 2 * scale)


@like_scipy
def sf(x, df, loc=0.0, scale=1.0):
    return gamma_sf(x, df / 2, loc, 2 * scale)


@like_scipy
def logcdf(x, df, loc=0.0, scale=1.0):
    return gamma_logcdf(x, df / 2, loc, 2 * scale)


@like_scipy
def logsf(x, df, loc=0.0, scale=1.0):
    return gamma_logsf(x, df / 2, loc, 2 * scale)
